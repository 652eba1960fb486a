"""Run the language server over stdio with stdout reserved for JSON-RPC
(`lsp_agent.stdout_guard`: fd 1 and `sys.stdout` go to stderr, the real stdout to pygls)."""

from __future__ import annotations

import sys

from lsp_agent.stdout_guard import reserve_stdout_for_rpc

__all__ = ["reserve_stdout_for_rpc", "serve_stdio"]


def serve_stdio() -> int:
    """Start the pygls server on stdin/stdout. Returns the exit code."""
    rpc_out = reserve_stdout_for_rpc()
    from lsp_agent.lsp.server import create_server
    from lsp_agent.lsp.warm_up_gate import ActivityReader

    server = create_server()
    stdin = ActivityReader(sys.stdin.buffer, server.warm_up_gate)
    server.start_io(stdin, rpc_out)  # type: ignore[arg-type]  # readline and read suffice
    return 0
