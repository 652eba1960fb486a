"""lsp-agent: an editor-integrated coding agent for small local models."""

# Before any third-party import: the user's environment as it is now (safety/host_env.py),
# and LiteLLM told not to load a `.env` into the process when it is imported (it searches
# upward from its own directory: with lsp-agent installed in a virtual environment inside a
# repository, that finds the repository's `.env`).
from safety import host_env as _host_env

_host_env.take_snapshot()
_host_env.set_own("LITELLM_MODE", "PRODUCTION")

__version__ = "0.1.0"
