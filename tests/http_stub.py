"""A tiny scripted HTTP server on 127.0.0.1 for tests (model endpoints and the like)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Route = Callable[[str, dict[str, Any] | None], tuple[int, Any]]


@contextmanager
def http_stub(route: Route) -> Iterator[str]:
    """Serve `route(path, json_body) -> (status, json)`; yield the base URL."""

    class Handler(BaseHTTPRequestHandler):
        def _reply(self, body: dict[str, Any] | None) -> None:
            send_json(self, *route(self.path, body))

        def do_GET(self) -> None:
            self._reply(None)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            self._reply(json.loads(self.rfile.read(length) or b"{}"))

        def log_message(self, *args: Any) -> None:
            return

    with serving(Handler) as base:
        yield base


def send_json(handler: BaseHTTPRequestHandler, status: int, payload: Any) -> None:
    """Answer with `payload` as JSON."""
    send_bytes(handler, status, json.dumps(payload).encode(), "application/json")


def send_bytes(
    handler: BaseHTTPRequestHandler, status: int, data: bytes, content_type: str
) -> None:
    """Answer with `data`, its length stated."""
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve `handler` on 127.0.0.1 in a thread; yield the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
