"""Strict LSP base-protocol framing: split a byte stream into JSON-RPC messages or fail."""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

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


def read_frames(stream: IO[bytes]) -> Iterator[dict[str, Any]]:
    """Messages from a live server's stdout as they arrive; stray bytes at the end raise."""
    buffer = b""
    while chunk := stream.read1(65536):  # type: ignore[attr-defined]
        buffer += chunk
        while (match := HEADER.match(buffer)) and len(buffer) >= match.end() + int(match.group(1)):
            end = match.end() + int(match.group(1))
            message = json.loads(buffer[match.end() : end])
            buffer = buffer[end:]
            yield message
    assert buffer == b"", f"stray bytes on stdout: {buffer[:80]!r}"


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


def run_jobs(
    command: list[str], root: Path, tasks: list[str], env: dict[str, str]
) -> tuple[list[dict[str, Any]], str, int]:
    """A whole editor session with a live server: initialize on `root`, run each task with
    `lspAgent.run` once the one before has ended (its `(job N)` message), shut down; every
    stdout byte must be a frame. Returns (stdout messages, stderr, exit code)."""
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout, chunks = proc.stdin, proc.stdout, []
    reader = threading.Thread(target=lambda: chunks.extend(iter(lambda: stdout.read1(65536), b"")))
    reader.start()

    def send(message: dict[str, Any]) -> None:
        stdin.write(frame({"jsonrpc": "2.0", **message}))
        stdin.flush()

    params = {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
    send({"id": 1, "method": "initialize", "params": params})
    send({"method": "initialized", "params": {}})
    for job, task in enumerate(tasks, 1):
        run = {"command": "lspAgent.run", "arguments": [{"task": task}]}
        send({"id": 1 + job, "method": "workspace/executeCommand", "params": run})
        deadline = time.monotonic() + 120
        while f"(job {job})".encode() not in b"".join(chunks) and time.monotonic() < deadline:
            time.sleep(0.05)
    send({"id": 100, "method": "shutdown"})
    send({"method": "exit"})
    proc.wait(timeout=60)
    reader.join(timeout=10)
    stderr = (proc.stderr.read() if proc.stderr else b"").decode()
    return parse_frames(b"".join(chunks)), stderr, proc.returncode
