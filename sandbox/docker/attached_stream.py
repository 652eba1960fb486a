"""The attached stdin/stdout of a container's main process: JSON lines in, marked lines out.

Both the check driver (`sandbox/checks/driver.py serve`) and the code runner
(`sandbox/code/runner.py`) run as a container's main process with stdin attached to our
socket (`StdinOnce`). Docker multiplexes the process's stdout and stderr on that socket in
frames (an 8-byte header: stream, 3 zero bytes, big-endian size). `AttachedStream` keeps
partial frames and partial lines between reads, so a caller can wait in short slices (to
honour cancel) without losing data; of stdout it returns only the lines that start with the
process's marker, parsed as JSON objects (anything else — a child's output, a forged or
broken line — is skipped; bytes without a line end are dropped past `LINE_LIMIT`); of
stderr it keeps the tail, to say why a process ended.
"""

from __future__ import annotations

import json
import socket
import struct
import time
from typing import Any

from sandbox.docker.engine import ChannelBroken

LINE_LIMIT = 4 * 1024 * 1024  # a protocol line longer than this is dropped unread
STDERR_KEPT = 4000
_STDOUT, _STDERR = 1, 2
_HEADER = 8


def start_attached(api: Any, container_id: str) -> Any:
    """Attach to a created container's stdin, stdout and stderr, then start it (attached
    first: nothing its main process prints is missed); the attached socket."""
    sock = api.attach_socket(
        container_id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
    )
    api.start(container_id)
    return sock


class AttachedStream:
    """One container's attached socket: `send` a JSON line, `receive` the next marked one."""

    def __init__(self, sock: Any, marker: str, *, name: str, ended: str) -> None:
        self._response = sock  # keeps the hijacked HTTP response alive
        self._sock: socket.socket = getattr(sock, "_sock", sock)
        self._marker = marker.encode()
        self._name = name  # for messages: "the code container"
        self._ended = ended  # what the end of the stream means: "the code container ended"
        self._raw = bytearray()  # bytes not yet split into frames
        self._stdout = bytearray()  # stdout bytes not yet split into lines
        self._stderr = b""
        self.closed = False

    @property
    def stderr_tail(self) -> str:
        return self._stderr.decode("utf-8", "replace").strip()[-500:]

    def send(self, message: dict[str, Any], timeout_s: float) -> None:
        """Write one JSON line to the process's stdin. Raises `ChannelBroken`."""
        if self.closed:
            raise ChannelBroken(f"{self._name} was closed")
        line = json.dumps(message, default=str).encode() + b"\n"
        try:
            self._sock.settimeout(max(timeout_s, 1.0))
            self._sock.sendall(line)
        except OSError as exc:
            raise ChannelBroken(f"cannot send to {self._name}: {exc}") from exc

    def receive(self, timeout_s: float) -> dict[str, Any] | None:
        """The next marked message, or None when none came within `timeout_s`.

        Raises `ChannelBroken` when the process ended (crashed, killed, out of memory)."""
        deadline = time.monotonic() + max(timeout_s, 0.0)
        while True:
            message = self._next_line()
            if message is not None:
                return message
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self._read(remaining)

    def alive(self) -> bool:
        """Whether the process's end of the socket is still open (no engine call)."""
        if self.closed:
            return False
        try:
            self._sock.settimeout(0.0)  # every other use sets its own timeout
            data = self._sock.recv(1, socket.MSG_PEEK)
        except BlockingIOError:
            return True  # open, nothing to read: the process waits for us
        except OSError:
            return False
        return bool(data)  # b"" is end of stream: the container stopped

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            self._sock.close()
            self._response.close()
        except OSError:
            pass

    # ---- reading -------------------------------------------------------------------------
    def _read(self, timeout_s: float) -> None:
        if self.closed:
            raise ChannelBroken(f"{self._name} was closed")
        try:
            self._sock.settimeout(max(timeout_s, 0.001))
            chunk = self._sock.recv(65536)
        except TimeoutError:
            return
        except OSError as exc:
            raise ChannelBroken(f"lost {self._name}: {exc}") from exc
        if not chunk:
            tail = self.stderr_tail
            raise ChannelBroken(self._ended + (f": {tail}" if tail else ""))
        self._raw += chunk
        self._split_frames()

    def _split_frames(self) -> None:
        while len(self._raw) >= _HEADER:
            stream, size = self._raw[0], struct.unpack(">L", self._raw[4:_HEADER])[0]
            if len(self._raw) < _HEADER + size:
                return
            data = bytes(self._raw[_HEADER : _HEADER + size])
            del self._raw[: _HEADER + size]
            if stream == _STDERR:
                self._stderr = (self._stderr + data)[-STDERR_KEPT:]
            elif stream == _STDOUT:
                self._stdout += data

    def _next_line(self) -> dict[str, Any] | None:
        while True:
            newline = self._stdout.find(b"\n")
            if newline < 0:
                if len(self._stdout) > LINE_LIMIT:  # no line end in sight: not ours to keep
                    self._stdout.clear()
                return None
            line = bytes(self._stdout[:newline])
            del self._stdout[: newline + 1]
            if not line.startswith(self._marker):
                continue
            message = parse_message(line[len(self._marker) :])
            if message is not None:
                return message


MAX_DEPTH = 32


def parse_message(raw: bytes | str) -> dict[str, Any] | None:
    """A protocol message: a JSON object nested at most `MAX_DEPTH` deep, else None.

    What the container writes may be forged by the code running in it: a line nested
    thousands deep would raise `RecursionError` here (or later, wherever the message is
    walked), so it is refused like any line that is not a message."""
    try:
        message = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or _deeper_than(message, MAX_DEPTH):
        return None
    return message


def _deeper_than(value: Any, limit: int) -> bool:
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            pending.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            pending.extend((child, depth + 1) for child in item)
    return False
