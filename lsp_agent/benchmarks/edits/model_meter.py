"""A metering relay in front of the model endpoint: every agent's requests go through it.

It forwards `POST …/chat/completions` and `GET …/models` (nothing else) to the upstream
OpenAI-compatible server and counts, per measured run, the requests and the tokens the
server reports (`usage`, or llama.cpp's `timings` when a stream carries no usage). All three
agents are counted the same way. It listens on 127.0.0.1 (for lsp-agent) and on a Unix
socket (for the peer containers, which have no network: the socket is all they can reach).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import socket
import socketserver
import threading
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

UPSTREAM_TIMEOUT_S = 1800.0  # one reply of a small model on 2 cores can take minutes
ROUTES = {("POST", "chat/completions"), ("GET", "models")}


@dataclass
class Usage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failed_calls: int = 0
    # One transcript entry per request: the messages new since the request before, and the
    # reply's message (or the HTTP status), enough to read why a run went as it did.
    exchanges: list[dict[str, Any]] = field(default_factory=list)


class ModelMeter:
    """Context manager: the relay's TCP base URL (`base_url`) and Unix socket (`socket_path`)."""

    def __init__(self, upstream_base: str, socket_dir: Path | None = None) -> None:
        self.upstream_base = upstream_base.rstrip("/")
        self.socket_path = socket_dir / "model.sock" if socket_dir else None
        self._lock = threading.Lock()
        self._usage = Usage()
        self._sent: list[Any] = []  # the messages of the request before
        self._open: set[http.client.HTTPConnection] = set()  # requests under way upstream
        handler = _handler(self)
        tcp = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._servers: list[socketserver.BaseServer] = [tcp]
        if self.socket_path is not None:
            self._servers.append(_UnixHTTPServer(str(self.socket_path), handler))
            os.chmod(self.socket_path, 0o666)  # the container's uid must be able to connect
        self.base_url = f"http://127.0.0.1:{tcp.server_port}/v1"

    def __enter__(self) -> ModelMeter:
        for server in self._servers:
            threading.Thread(target=server.serve_forever, daemon=True, name="model-meter").start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self.abort()
        if self.socket_path is not None:
            self.socket_path.unlink(missing_ok=True)

    def take(self) -> Usage:
        """What was counted since the last `take()` (runs are measured one at a time)."""
        with self._lock:
            usage, self._usage, self._sent = self._usage, Usage(), []
        return usage

    def abort(self) -> None:
        """Drop the requests under way: the server stops generating a reply nobody will read
        (a run that timed out must not keep the one model slot busy for the next)."""
        with self._lock:
            connections = list(self._open)
        for connection in connections:
            if connection.sock is not None:
                with contextlib.suppress(OSError):
                    connection.sock.shutdown(socket.SHUT_RDWR)  # wakes the blocked read

    def record(self, request: bytes, reply: dict[str, Any] | None, status: int) -> None:
        prompt, completion = _tokens(reply or {})
        messages = _messages(request)
        with self._lock:
            sent, self._sent = self._sent, messages
            new = messages[len(sent) :] if messages[: len(sent)] == sent else messages
            choice = ((reply or {}).get("choices") or [{}])[0]
            self._usage.exchanges.append(
                {"status": status, "new_messages": new, "reply": choice.get("message", {})}
            )
            self._usage.calls += 1
            self._usage.failed_calls += 0 if status == HTTPStatus.OK else 1
            self._usage.prompt_tokens += prompt
            self._usage.completion_tokens += completion

    def forward(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        route = handler.path.split("?", 1)[0].strip("/").removeprefix("v1/")
        if (method, route) not in ROUTES:
            handler.send_error(404, "only chat/completions and models are relayed")
            return
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else b""
        connection = self._connect()
        try:
            upstream_body = _with_stream_timings(body) if route == "chat/completions" else body
            connection.request(
                method, f"{self._path}/{route}", body=upstream_body, headers=_HEADERS
            )
            upstream = connection.getresponse()
            handler.send_response(upstream.status)
            kind = upstream.getheader("content-type", "application/json")
            handler.send_header("Content-Type", kind)
            handler.end_headers()  # HTTP/1.0: the body ends when the connection closes
            chunks = []
            while chunk := upstream.read1(65536):
                chunks.append(chunk)
                try:
                    handler.wfile.write(chunk)
                    handler.wfile.flush()
                except OSError:  # the client read what it wanted (lsp-agent cuts a stream
                    break  # after a complete call): the reply so far is the reply
        except (http.client.HTTPException, OSError) as exc:
            if route == "chat/completions":
                self.record(body, None, HTTPStatus.BAD_GATEWAY)
            with contextlib.suppress(OSError):
                handler.send_error(502, f"model endpoint: {exc}")
            return
        finally:
            with self._lock:
                self._open.discard(connection)
            connection.close()
        if route == "chat/completions":
            reply = _reply(b"".join(chunks), "event-stream" in kind)
            self.record(body, reply, upstream.status)

    @property
    def _path(self) -> str:
        return urlsplit(self.upstream_base).path.rstrip("/")

    def _connect(self) -> http.client.HTTPConnection:
        parts = urlsplit(self.upstream_base)
        secure = parts.scheme == "https"
        kind = http.client.HTTPSConnection if secure else http.client.HTTPConnection
        connection = kind(parts.hostname or "127.0.0.1", parts.port, timeout=UPSTREAM_TIMEOUT_S)
        with self._lock:
            self._open.add(connection)
        return connection


_HEADERS = {"Content-Type": "application/json"}


def _with_stream_timings(body: bytes) -> bytes:
    """A streamed request asks llama.cpp's server for its figures with every chunk
    (`timings_per_token`), so a stream the client stops reading is still counted."""
    try:
        request = json.loads(body)
    except ValueError:
        return body
    if not isinstance(request, dict) or not request.get("stream"):
        return body
    return json.dumps({**request, "timings_per_token": True}).encode()


def _reply(data: bytes, streamed: bool) -> dict[str, Any] | None:
    """The reply's JSON; a stream's chunks joined into one reply of the same shape."""
    text = data.decode("utf-8", "replace")
    if not streamed:
        try:
            reply = json.loads(text)
        except ValueError:
            return None
        return reply if isinstance(reply, dict) else None
    joined: dict[str, Any] = {}
    content: list[str] = []
    calls: dict[int, dict[str, str]] = {}
    for line in text.splitlines():
        payload = line.removeprefix("data:").strip()
        if not line.startswith("data:") or payload == "[DONE]":
            continue
        try:
            chunk = json.loads(payload)
        except ValueError:
            continue
        if not isinstance(chunk, dict):
            continue
        joined.update({key: chunk[key] for key in ("usage", "timings") if chunk.get(key)})
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            content.append(delta.get("content") or "")
            for call in delta.get("tool_calls") or []:
                into = calls.setdefault(int(call.get("index", 0)), {"name": "", "arguments": ""})
                function = call.get("function") or {}
                into["name"] += function.get("name") or ""
                into["arguments"] += function.get("arguments") or ""
    message = {"content": "".join(content), "tool_calls": [calls[i] for i in sorted(calls)]}
    joined["choices"] = [{"message": message}]
    return joined


def _messages(request: bytes) -> list[Any]:
    try:
        messages = json.loads(request).get("messages")
    except (ValueError, AttributeError):
        return []
    return messages if isinstance(messages, list) else []


def _tokens(reply: dict[str, Any]) -> tuple[int, int]:
    usage = reply.get("usage") or {}
    if usage:
        return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
    timings = reply.get("timings") or {}  # llama.cpp's server: prompt_n excludes cached tokens
    prompt = int(timings.get("prompt_n") or 0) + int(timings.get("cache_n") or 0)
    return prompt, int(timings.get("predicted_n") or 0)


class _UnixHTTPServer(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True


def _handler(meter: ModelMeter) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            meter.forward(self, "POST")

        def do_GET(self) -> None:
            meter.forward(self, "GET")

        def address_string(self) -> str:  # a Unix socket's peer has no address
            return "local"

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler
