"""An MCP server for tests (FastMCP over stdio): tools that work, hang, crash, tell their pid."""

from __future__ import annotations

import os
import time
from typing import Literal

from mcp.server.fastmcp import FastMCP

server = FastMCP("flaky")


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@server.tool()
def pick(color: Literal["red", "green"]) -> str:
    """Pick a colour."""
    return color


@server.tool()
def pid() -> str:
    """The server's process id."""
    return str(os.getpid())


@server.tool()
def hang(seconds: float) -> str:
    """Sleep, then answer."""
    time.sleep(seconds)
    return "woke up"


@server.tool()
def crash() -> str:
    """Exit the server process at once."""
    os._exit(3)


@server.tool()
def secret_env() -> str:
    """Whether the server sees a variable the user's environment has but its config lacks."""
    return os.environ.get("LSP_AGENT_TEST_SECRET", "absent")


if __name__ == "__main__":
    server.run()
