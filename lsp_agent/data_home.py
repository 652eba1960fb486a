"""Where lsp-agent keeps its own data (environments, models): one directory per user."""

from __future__ import annotations

from pathlib import Path

from safety.host_env import user_environ


def data_home() -> Path:
    """`$LSP_AGENT_HOME`, else `$XDG_DATA_HOME/lsp-agent`, else `~/.local/share/lsp-agent`
    (from the user's start-up environment, `safety.host_env`)."""
    explicit = user_environ().get("LSP_AGENT_HOME")
    if explicit:
        return Path(explicit)
    xdg = user_environ().get("XDG_DATA_HOME")
    return (Path(xdg) if xdg else Path.home() / ".local" / "share") / "lsp-agent"
