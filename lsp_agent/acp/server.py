"""`lsp-agent acp`: the ACP agent on stdin/stdout, stdout reserved for protocol messages.

Before anything else runs, the real stdout is kept for the protocol writer and fd 1 goes
to stderr (`lsp_agent.stdout_guard`), so no library print can corrupt the stream. Input is
read by a thread (any kind of stdin: pipe, socket or file) and fed to the event loop;
output is written by a thread, so a slow client never blocks the loop. When stdin ends,
running jobs are cancelled and requests already read are still answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
from typing import Any, BinaryIO, cast

from lsp_agent.stdout_guard import reserve_stdout_for_rpc

log = logging.getLogger(__name__)
READ_CHUNK = 64 * 1024
FINISH_GRACE_S = 30.0


def _feed_stdin(loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader, fd: int) -> None:
    def pump() -> None:
        try:
            while True:
                data = os.read(fd, READ_CHUNK)
                if not data:
                    break
                loop.call_soon_threadsafe(reader.feed_data, data)
        except OSError as exc:
            log.warning("acp: reading stdin failed: %s", exc)
        finally:
            loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=pump, name="acp-stdin", daemon=True).start()


class _ThreadWriter:
    """The StreamWriter surface `LineTransport` uses, writing in a worker thread."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self._pending = b""

    def write(self, data: bytes) -> None:
        self._pending += data

    async def drain(self) -> None:
        data, self._pending = self._pending, b""
        if data:
            await asyncio.to_thread(self._write_all, data)

    def _write_all(self, data: bytes) -> None:
        self.out.write(data)
        self.out.flush()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.out.flush()


async def serve(stdin_fd: int, out: BinaryIO) -> None:
    """Serve one ACP connection until the client closes stdin."""
    from acp.agent.connection import AgentSideConnection

    from lsp_agent.acp.agent import LspAgentAcp
    from lsp_agent.acp.transport import LineTransport

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1024 * 1024)
    _feed_stdin(loop, reader, stdin_fd)
    transport = LineTransport(reader, _ThreadWriter(out))  # type: ignore[arg-type]
    agent = LspAgentAcp()
    # The SDK's `Agent` protocol lists every method; this agent implements the ones it
    # offers, and the SDK answers the others with `Method not found`.
    connection = AgentSideConnection(cast(Any, agent), transport, listening=False)
    try:
        await connection.listen()
    finally:
        agent.close()  # the client closed its end: cancel every running job
        await _finish_requests(FINISH_GRACE_S)
        await connection.close()


async def _finish_requests(grace_s: float) -> None:
    """Let requests already read be answered (a cancelled prompt stops within a step)."""
    current = asyncio.current_task()
    pending = [
        task
        for task in asyncio.all_tasks()
        if task is not current and task.get_name().startswith("acp.Connection.request")
    ]
    if pending:
        await asyncio.wait(pending, timeout=grace_s)


def serve_acp() -> int:
    """Run the ACP agent on stdio. Returns the exit code."""
    rpc_out = reserve_stdout_for_rpc()
    log.info("acp: lsp-agent ACP agent on stdio (protocol version 1)")
    asyncio.run(serve(sys.stdin.fileno(), rpc_out))
    return 0
