"""The compliance suite's tiny MCP server (FastMCP over stdio).

It knows one thing the repository does not: the project's release numbers. Level L9 asks
a question only this server can answer, so a model passes only by calling its tool.

    python -m lsp_agent.benchmarks.compliance.mcp_server
"""

from __future__ import annotations

from mcp.server.fastmcp import FastMCP

RELEASES = {"calc": "4.7.2", "stats": "1.0.9"}

server = FastMCP("lsp-agent-compliance")


@server.tool()
def release_version(package: str) -> str:
    """The latest released version of one of this project's packages."""
    version = RELEASES.get(package.strip().lower())
    if version is None:
        return f"unknown package {package!r}; known: {', '.join(sorted(RELEASES))}"
    return version


if __name__ == "__main__":
    server.run()
