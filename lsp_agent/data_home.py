"""Where lsp-agent keeps its own data (environments, models): one directory per user."""

from __future__ import annotations

import os
from pathlib import Path


def data_home() -> Path:
    """`$LSP_AGENT_HOME`, else `$XDG_DATA_HOME/lsp-agent`, else `~/.local/share/lsp-agent`."""
    explicit = os.environ.get("LSP_AGENT_HOME")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_DATA_HOME")
    return (Path(xdg) if xdg else Path.home() / ".local" / "share") / "lsp-agent"
