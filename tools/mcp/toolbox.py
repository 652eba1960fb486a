"""The MCP servers of one job: started together, their tools bounded, stopped together.

Lifecycle: per job. The servers start when a job starts and stop when it ends or is
cancelled, so a crashed or wedged server never outlives the task that used it and every
job sees the configuration as it is now. The cost is the servers' start-up per job.

Many tools drown a small model: a server's `tools` allow-list picks what is offered, and
at most `MAX_TOOLS` MCP tools are offered in all (the rest are logged, not offered).
A server that does not start is logged and left out; the job goes on without it.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from tools.base import ToolContext
from tools.mcp.config import McpServerSpec
from tools.mcp.connection import McpConnection, McpServerError
from tools.mcp.mcp_tool import McpTool, agent_tool_name

log = logging.getLogger(__name__)

MAX_TOOLS = 10


class McpToolbox:
    """Start `specs` for the workspace at `root` (never in it); `tools(context)` are the
    agent tools; `close()` stops all."""

    def __init__(
        self,
        specs: list[McpServerSpec],
        root: Path,
        *,
        cancel: threading.Event | None = None,
        max_tools: int = MAX_TOOLS,
    ) -> None:
        self.specs = specs
        self.root = root
        self.cancel = cancel
        self.max_tools = max_tools
        self.connections: list[McpConnection] = []
        self.problems: list[str] = []

    def tools(self, context: ToolContext) -> list[McpTool]:
        """Start every server (once) and return the tools to offer, within the bounds."""
        if not self.connections:
            for spec in self.specs:
                connection = McpConnection(spec, self.root)
                try:
                    connection.start()
                except McpServerError as exc:
                    self.problems.append(str(exc))
                    log.warning("%s; its tools are not offered", exc)
                    continue
                self.connections.append(connection)
        offered: list[McpTool] = []
        names: set[str] = set()
        for connection in self.connections:
            for tool in connection.tools:
                if not connection.spec.allows(tool.name):
                    continue
                if len(offered) >= self.max_tools:
                    log.warning(
                        "MCP: %s of server %r is not offered: at most %d MCP tools are",
                        tool.name,
                        connection.spec.name,
                        self.max_tools,
                    )
                    continue
                name = agent_tool_name(connection.spec.name, tool.name, names)
                names.add(name)
                offered.append(McpTool(context, connection, tool, self.cancel, name=name))
        return offered

    def close(self) -> None:
        for connection in self.connections:
            connection.close()
        self.connections.clear()

    def __enter__(self) -> McpToolbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
