"""`lsp_agent.acp.transport`: which decoded lines are JSON-RPC messages, and the transport
answering the others over real asyncio streams while it keeps reading."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from lsp_agent.acp.transport import LineTransport, message_problem


@pytest.mark.parametrize(
    ("message", "ok"),
    [
        ({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}, True),
        ({"jsonrpc": "2.0", "id": "a", "method": "session/new"}, True),
        ({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}, True),
        ({"jsonrpc": "2.0", "id": 3, "result": {}}, True),
        ({"jsonrpc": "2.0", "id": 3, "error": {"code": 1, "message": "x"}}, True),
        ([1, 2], False),
        ("text", False),
        (None, False),
        ({"jsonrpc": "2.0", "id": 3}, False),
        ({"jsonrpc": "2.0", "id": 3, "method": 5}, False),
        ({"jsonrpc": "2.0", "id": 3, "method": "x", "params": "p"}, False),
        ({"jsonrpc": "2.0", "id": True, "method": "x"}, False),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "x"}, False),
    ],
)
def test_what_counts_as_a_message(message: Any, ok: bool) -> None:
    assert (message_problem(message) is None) is ok


class _Sink:
    """A StreamWriter surface that keeps what was written."""

    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        return None


async def test_bad_lines_are_answered_and_the_next_message_is_returned() -> None:
    reader = asyncio.StreamReader()
    sink = _Sink()
    transport = LineTransport(reader, sink)  # type: ignore[arg-type]
    reader.feed_data(b"not json\n\n[1]\n")
    reader.feed_data(b'{"jsonrpc": "2.0", "id": 9, "method": "initialize"}\n')
    reader.feed_eof()
    message = await transport.receive()
    assert message == {"jsonrpc": "2.0", "id": 9, "method": "initialize"}
    answers = [json.loads(line) for line in sink.data.splitlines()]
    assert [a["error"]["code"] for a in answers] == [-32700, -32600]
    assert all(a["id"] is None for a in answers)
    assert await transport.receive() is None  # end of input
