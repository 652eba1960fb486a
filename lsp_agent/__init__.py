"""lsp-agent: an editor-integrated coding agent for small local models."""

# Before any third-party import: the user's environment as it is now (safety/host_env.py).
from safety import host_env as _host_env

_host_env.take_snapshot()

__version__ = "0.1.0"
