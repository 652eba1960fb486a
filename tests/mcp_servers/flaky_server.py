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


@server.tool()
def big(megabytes: int) -> str:
    """A result of that many megabytes."""
    return "x" * (megabytes * 1024 * 1024)


@server.tool()
def detach() -> str:
    """Start a process that leaves the server's session (double fork, setsid); its pid."""
    read_end, write_end = os.pipe()
    if os.fork() == 0:
        os.setsid()
        grandchild = os.fork()
        if grandchild == 0:
            os.close(read_end)
            os.close(write_end)
            time.sleep(600)
            os._exit(0)
        os.write(write_end, str(grandchild).encode())
        os._exit(0)
    os.close(write_end)
    pid = os.read(read_end, 32).decode()
    os.close(read_end)
    return pid


if __name__ == "__main__":
    server.run()
