"""Newline-delimited JSON-RPC over asyncio streams, answering bad input instead of dropping it.

The SDK's own stdio transport logs and skips a line that is not JSON, and a line that is
JSON but not an object stops its receive loop. This transport (the SDK's `Transport`
protocol: `send`, `receive`, `close`) answers such lines with a JSON-RPC error — `-32700`
for a line that does not parse, `-32600` for one that is not a request, notification or
response — and keeps reading, so one bad line never ends the session.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
MAX_LINE_BYTES = 50 * 1024 * 1024


def error_response(request_id: Any, code: int, message: str, details: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": code, "message": message, "data": {"details": details}},
    }


def message_problem(message: Any) -> str | None:
    """Why a decoded line is not a JSON-RPC message, or None when it is one."""
    if not isinstance(message, dict):
        return f"a message must be a JSON object, not {type(message).__name__}"
    method = message.get("method")
    if method is None:
        if "id" in message and ("result" in message or "error" in message):
            return None  # a response to one of our requests
        return "a message needs a method (request, notification) or a result/error (response)"
    if not isinstance(method, str):
        return "method must be a string"
    params = message.get("params")
    if params is not None and not isinstance(params, dict | list):
        return "params must be an object or an array"
    request_id = message.get("id")
    if "id" in message and (not isinstance(request_id, str | int) or isinstance(request_id, bool)):
        return "id must be a string or an integer"
    return None


class LineTransport:
    """One JSON object per line in each direction."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._lock = asyncio.Lock()
        self._closed = False

    async def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n").encode()
        async with self._lock:
            if self._closed:
                raise ConnectionError("the transport is closed")
            self._writer.write(data)
            await self._writer.drain()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            line = await self._read_line()
            if line is None:
                return None
            text = line.strip()
            if not text:
                continue
            try:
                message = json.loads(text)
            except ValueError as exc:
                log.warning("acp: a line that is not JSON: %s", exc)
                await self.send(error_response(None, PARSE_ERROR, "Parse error", str(exc)))
                continue
            problem = message_problem(message)
            if problem is None:
                return dict(message)
            log.warning("acp: an invalid message: %s", problem)
            request_id = message.get("id") if isinstance(message, dict) else None
            if not isinstance(request_id, str | int) or isinstance(request_id, bool):
                request_id = None
            await self.send(error_response(request_id, INVALID_REQUEST, "Invalid request", problem))

    async def _read_line(self) -> bytes | None:
        chunks: list[bytes] = []
        size = 0
        while True:
            try:
                chunk = await self._reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:
                return b"".join([*chunks, exc.partial]) or None
            except asyncio.LimitOverrunError as exc:
                chunk = await self._reader.readexactly(exc.consumed)
                size += len(chunk)
                if size <= MAX_LINE_BYTES:
                    chunks.append(chunk)
                continue
            if size + len(chunk) > MAX_LINE_BYTES:
                log.warning("acp: a line over %d bytes was dropped", MAX_LINE_BYTES)
                await self.send(
                    error_response(None, PARSE_ERROR, "Parse error", "the line is too long")
                )
                chunks, size = [], 0
                continue
            chunks.append(chunk)
            return b"".join(chunks)

    async def close(self) -> None:
        async with self._lock:
            if self._closed:
                return
            self._closed = True
            self._writer.close()
