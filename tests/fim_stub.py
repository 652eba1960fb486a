"""A scripted fill-in-the-middle server on 127.0.0.1: llama-server's `/infill` and Ollama's
`/api/generate` (streamed), for tests that need to see and steer what the backend gets.

`FimStub.reply(body)` gives the completion text (default: a fixed one); `hold()` makes the next
requests wait until `release()`, and a request whose client goes away while it waits is
counted in `abandoned` (as llama-server notices a closed connection and stops the slot).
"""

from __future__ import annotations

import json
import select
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.http_stub import send_bytes, send_json


class FimStub:
    """State shared with the handler threads."""

    def __init__(self, reply: Callable[[dict[str, Any]], str] | None = None) -> None:
        self.reply = reply or (lambda body: "completed()")
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.arrived = threading.Event()
        self.abandoned = 0
        self.status = 200
        self.error: dict[str, Any] | None = None
        self._open = threading.Event()
        self._open.set()
        self._lock = threading.Lock()
        self.url = ""

    def hold(self) -> None:
        self._open.clear()

    def release(self) -> None:
        self._open.set()

    def paths(self) -> list[str]:
        return [path for path, _ in self.calls]

    def _record(self, path: str, body: dict[str, Any]) -> None:
        with self._lock:
            self.calls.append((path, body))
        self.arrived.set()

    def _wait(self, connection: socket.socket) -> bool:
        """Wait until released; False when the client hung up first."""
        while not self._open.wait(0.02):
            readable, _, _ = select.select([connection], [], [], 0)
            if readable and not connection.recv(1, socket.MSG_PEEK):
                with self._lock:
                    self.abandoned += 1
                return False
        return True


@contextmanager
def fim_stub(stub: FimStub | None = None) -> Iterator[FimStub]:
    """Serve `stub` on a free port of 127.0.0.1 (its `url`) for the `with` block."""
    state = stub or FimStub()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            state._record(self.path, body)
            if not state._wait(self.connection):
                self.close_connection = True
                return
            if self.path == "/infill":
                self._infill(body)
            elif self.path == "/api/generate":
                self._generate(body)
            else:
                self._send(404, {"error": {"code": 404, "message": "File Not Found"}})

        def _infill(self, body: dict[str, Any]) -> None:
            if state.status != 200:
                self._send(state.status, state.error or {"error": {"message": "refused"}})
                return
            content = state.reply(body)
            self._send(
                200,
                {
                    "content": content,
                    "tokens_cached": 0,
                    "stop_type": "eos",
                    "timings/prompt_n": 10,
                    "timings/prompt_ms": 1.0,
                    "timings/predicted_n": len(content.split()),
                    "timings/predicted_ms": 1.0,
                },
            )

        def _generate(self, body: dict[str, Any]) -> None:
            if state.status != 200:
                self._send(state.status, state.error or {"error": "refused"})
                return
            content = state.reply(body)
            pieces = [content[i : i + 3] for i in range(0, len(content), 3)]
            lines = [{"response": p, "done": False} for p in pieces]
            lines.append({"response": "", "done": True, "prompt_eval_count": 10, "eval_count": 3})
            data = "".join(json.dumps(line) + "\n" for line in lines).encode()
            send_bytes(self, 200, data, "application/x-ndjson")

        def _send(self, status: int, payload: Any) -> None:
            send_json(self, status, payload)

        def log_message(self, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        state.release()
        server.shutdown()
        server.server_close()
