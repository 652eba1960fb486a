"""Run the language server over stdio with stdout reserved for JSON-RPC.

Any stray write to stdout — a `print` in a library, a C extension writing to fd 1, a
progress bar — would corrupt the message stream and break the editor. So before the
server starts, the real stdout file descriptor is duplicated for the JSON-RPC writer and
fd 1 (and `sys.stdout`) are pointed at stderr.
"""

from __future__ import annotations

import os
import sys
from typing import BinaryIO


def reserve_stdout_for_rpc() -> BinaryIO:
    """Return a binary stream on the real stdout; make fd 1 and `sys.stdout` go to stderr."""
    sys.stdout.flush()
    rpc_fd = os.dup(sys.stdout.fileno())
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    return os.fdopen(rpc_fd, "wb", buffering=0)


def serve_stdio() -> int:
    """Start the pygls server on stdin/stdout. Returns the exit code."""
    rpc_out = reserve_stdout_for_rpc()
    from lsp_agent.lsp.server import create_server

    server = create_server()
    server.start_io(sys.stdin.buffer, rpc_out)
    return 0
