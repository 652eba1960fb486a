"""MCP tool servers over stdio: the user's `MCP_CONFIG` servers, their tools offered to the
model next to the built-in ones, every call through the same `InstrumentedTool` wrapper.

- `config`: the `{"mcpServers": {...}}` file (user scope only; never from the workspace).
- `connection`: one server process per job, spoken to with the official `mcp` SDK on a
  background event loop, with start and call timeouts.
- `mcp_tool`: one `AgentTool` per MCP tool (`mcp_<server>_<tool>`, so it cannot shadow a
  built-in), arguments validated against its `inputSchema`, approval unless trusted.
- `toolbox`: starts the servers of a job, bounds the tools offered, stops them all.
- `supervisor`: the process each server runs under (`python -I`): caps a message's size
  and, as a child subreaper, ends what the server started when it ends.

Outside this folder, import from `tools.mcp` only (it loads the `mcp` SDK: front ends that
start fast import it when a job needs it).
"""

from tools.mcp.config import McpConfigError, McpServerSpec, load_mcp_config
from tools.mcp.connection import McpConnection, McpServerError
from tools.mcp.mcp_tool import McpTool
from tools.mcp.toolbox import McpToolbox

__all__ = [
    "McpConfigError",
    "McpConnection",
    "McpServerError",
    "McpServerSpec",
    "McpTool",
    "McpToolbox",
    "load_mcp_config",
]
