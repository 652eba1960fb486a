"""MCP tool servers over stdio: the user's `MCP_CONFIG` servers, their tools offered to the
model next to the built-in ones, every call through the same `InstrumentedTool` wrapper.

- `config`: the `{"mcpServers": {...}}` file (user scope only; never from the workspace).
- `connection`: one server process per job, spoken to with the official `mcp` SDK on a
  background event loop, with start and call timeouts.
- `mcp_tool`: one `AgentTool` per MCP tool (`mcp_<server>_<tool>`, so it cannot shadow a
  built-in), arguments validated against its `inputSchema`, approval unless trusted.
- `toolbox`: starts the servers of a job, bounds the tools offered, stops them all.

Outside this folder, import from `tools.mcp` only. The configuration is cheap to import; the
rest loads the `mcp` SDK, so it is imported on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from tools.mcp.config import McpConfigError, McpServerSpec, load_mcp_config

if TYPE_CHECKING:
    from tools.mcp.connection import McpConnection, McpServerError
    from tools.mcp.mcp_tool import McpTool
    from tools.mcp.toolbox import McpToolbox

_LAZY = {
    "McpConnection": "tools.mcp.connection",
    "McpServerError": "tools.mcp.connection",
    "McpTool": "tools.mcp.mcp_tool",
    "McpToolbox": "tools.mcp.toolbox",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "McpConfigError",
    "McpConnection",
    "McpServerError",
    "McpServerSpec",
    "McpTool",
    "McpToolbox",
    "load_mcp_config",
]
