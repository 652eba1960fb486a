"""Strict LSP base-protocol framing: split a byte stream into JSON-RPC messages or fail."""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

HEADER = re.compile(rb"Content-Length: (\d+)\r\n(?:Content-Type: [^\r\n]*\r\n)?\r\n")


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def parse_frames(data: bytes) -> list[dict[str, Any]]:
    """Every byte must belong to a framed JSON-RPC 2.0 message; anything else raises."""
    messages, pos = [], 0
    while pos < len(data):
        match = HEADER.match(data, pos)
        if match is None:
            raise AssertionError(f"stray bytes on stdout at {pos}: {data[pos : pos + 80]!r}")
        start = match.end()
        end = start + int(match.group(1))
        if end > len(data):
            raise AssertionError(f"truncated message at {pos}")
        message = json.loads(data[start:end])
        if message.get("jsonrpc") != "2.0":
            raise AssertionError(f"not JSON-RPC 2.0: {message!r}")
        messages.append(message)
        pos = end
    return messages


def session(
    command: list[str], *messages: dict[str, Any], env: dict[str, str] | None = None
) -> tuple[list[dict[str, Any]], bytes, int]:
    """Send `messages` to a server on stdin, close it, and return (stdout messages, stderr, rc)."""
    proc = subprocess.run(
        command,
        input=b"".join(frame(m) for m in messages),
        capture_output=True,
        timeout=60,
        env=env,
    )
    return parse_frames(proc.stdout), proc.stderr, proc.returncode
