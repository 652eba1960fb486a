"""A scripted model endpoint on 127.0.0.1: OpenAI-compatible and Ollama-compatible.

`POST /v1/chat/completions` (JSON, or SSE when the body asks `stream: true`), `GET /v1/models`,
`POST /api/chat` (Ollama; NDJSON when streaming), `POST /api/show`, `GET /api/tags`, `GET /`.
Each chat request takes the next script turn (see `lsp_agent.models.scripted.script`); every request
is recorded. `rejects(body)` may refuse an OpenAI chat request before it takes a turn, answering
`(status, error body)` as a real server would (see `lsp_agent.testing.server_quirks`).
Standard library only; nothing is written to stdout or stderr.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from lsp_agent.models.scripted.script import ScriptTurn, exhausted_turn, parse_script
from lsp_agent.testing.server_process import LoopbackServer
from lsp_agent.testing.wire_format import (
    OLLAMA_SHOW_REPLY,
    SCRIPTED_MODEL_NAME,
    ollama_chat_reply,
    openai_completion,
    openai_stream_chunks,
)


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received; `body` is the parsed JSON (None if not JSON)."""

    method: str
    path: str
    body: Any
    raw_body: bytes


Rejection = Callable[[Any], "tuple[int, Any] | None"]


class ScriptedOpenAIServer(LoopbackServer):
    """Context manager serving scripted model replies on 127.0.0.1 (a free port by default)."""

    def __init__(
        self,
        turns: Iterable[Any] = (),
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        rejects: Rejection | None = None,
    ) -> None:
        self.rejects = rejects
        self._lock = threading.Lock()
        self._turns: deque[ScriptTurn] = deque(parse_script(turns))
        self._requests: list[RecordedRequest] = []
        self._served = 0
        self._httpd = ThreadingHTTPServer((host, port), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> ScriptedOpenAIServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.05},
                name="scripted-model-server",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses ---------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    # -- script and records ------------------------------------------------------------------
    def add_turns(self, turns: Iterable[Any]) -> None:
        parsed = parse_script(turns)
        with self._lock:
            self._turns.extend(parsed)

    def set_turns(self, turns: Iterable[Any]) -> None:
        parsed = parse_script(turns)
        with self._lock:
            self._turns = deque(parsed)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._turns)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[Any]:
        """Bodies of every chat request (OpenAI and Ollama), oldest first."""
        chat_paths = ("/v1/chat/completions", "/chat/completions", "/api/chat")
        return [r.body for r in self.requests if r.path.split("?")[0] in chat_paths]

    def clear_requests(self) -> None:
        with self._lock:
            self._requests.clear()

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def next_turn(self) -> tuple[ScriptTurn, int]:
        """The next turn and its index; a final answer saying so once the script is used up."""
        with self._lock:
            index = self._served
            self._served += 1
            if self._turns:
                return self._turns.popleft(), index
            return exhausted_turn(index), index


def _make_handler(server: ScriptedOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out in separate writes

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _send_json(self, status: int, payload: Any) -> None:
            self._send(status, json.dumps(payload).encode())

        def _send_stream(self, lines: list[str], content_type: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Connection", "close")
            self.end_headers()
            for line in lines:
                self.wfile.write(line.encode())
                self.wfile.flush()
            self.close_connection = True

        def do_GET(self) -> None:
            path = self.path.split("?")[0].rstrip("/")
            server.record(RecordedRequest("GET", self.path, None, b""))
            if path in ("/v1/models", "/models"):
                model = {"id": SCRIPTED_MODEL_NAME, "object": "model", "owned_by": "lsp-agent"}
                self._send_json(200, {"object": "list", "data": [model]})
            elif path == "/api/tags":
                name = f"{SCRIPTED_MODEL_NAME}:latest"
                self._send_json(200, {"models": [{"name": name, "model": name}]})
            elif path == "":
                self._send(200, b"Ollama is running", "text/plain")
            else:
                self._send_json(404, {"error": {"message": f"no route {path}"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = None
            server.record(RecordedRequest("POST", self.path, body, raw))
            path = self.path.split("?")[0].rstrip("/")
            rejection = server.rejects(body) if server.rejects is not None else None
            if path in ("/v1/chat/completions", "/chat/completions") and rejection is not None:
                self._send_json(*rejection)
            elif path in ("/v1/chat/completions", "/chat/completions"):
                self._chat(body, ollama=False)
            elif path == "/api/chat":
                self._chat(body, ollama=True)
            elif path == "/api/show":
                self._send_json(200, OLLAMA_SHOW_REPLY)
            else:
                self._send_json(404, {"error": {"message": f"no route {path}"}})

        def _chat(self, body: Any, *, ollama: bool) -> None:
            turn, index = server.next_turn()
            if turn.delay_s:
                time.sleep(turn.delay_s)
            if turn.drop_connection:
                self.close_connection = True
                self.connection.close()
                return
            if turn.raw_body is not None:
                self._send(turn.status, turn.raw_body.encode())
                return
            if turn.error is not None:
                error: Any = (
                    turn.error if ollama else {"message": turn.error, "type": "server_error"}
                )
                self._send_json(turn.status, {"error": error})
                return
            stream = isinstance(body, dict) and bool(body.get("stream"))
            if ollama:
                reply = ollama_chat_reply(turn, body)
                if stream:
                    self._send_stream([json.dumps(reply) + "\n"], "application/x-ndjson")
                else:
                    self._send_json(turn.status, reply)
            elif stream:
                chunks = openai_stream_chunks(turn, index, body)
                lines = [f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"]
                self._send_stream(lines, "text/event-stream")
            else:
                self._send_json(turn.status, openai_completion(turn, index, body))

    return Handler
