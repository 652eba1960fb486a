"""The relay's token counting and stream joining."""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
from pathlib import Path

import httpx

from lsp_agent.benchmarks.edits.model_meter import ModelMeter, _reply, _tokens


def test_the_relay_counts_usage_or_llama_cpp_timings_and_joins_streams() -> None:
    assert _tokens({"usage": {"prompt_tokens": 7, "completion_tokens": 3}}) == (7, 3)
    assert _tokens({"timings": {"prompt_n": 5, "cache_n": 95, "predicted_n": 12}}) == (100, 12)
    chunks = [
        {"choices": [{"delta": {"content": "Hel"}}]},
        {"choices": [{"delta": {"content": "lo"}}]},
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"name": "bash"}}]}}]},
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}}]},
        {"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2}},
    ]
    stream = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"
    reply = _reply(stream.encode(), streamed=True)
    assert reply is not None
    assert reply["choices"][0]["message"] == {
        "content": "Hello",
        "tool_calls": [{"name": "bash", "arguments": "{}"}],
    }
    assert _tokens(reply) == (9, 2)
    assert _reply(b"not json", streamed=False) is None


def read_request(connection: socket.socket) -> bytes:
    """One whole HTTP request (head and body come in separate packets)."""
    data = b""
    while (b"\r\n\r\n" not in data or not complete(data)) and (chunk := connection.recv(65536)):
        data += chunk
    return data


def complete(request: bytes) -> bool:
    head, _, body = request.partition(b"\r\n\r\n")
    length = re.search(rb"Content-Length: (\d+)", head, re.I)
    return len(body) >= (int(length.group(1)) if length else 0)


def test_abort_drops_the_request_under_way_so_the_server_stops_generating(
    tmp_path: Path,
) -> None:
    """A run that timed out leaves no reply generating: the upstream connection closes."""
    upstream = socket.create_server(("127.0.0.1", 0))
    closed = threading.Event()
    upstream_asked = threading.Event()

    def generate_forever() -> None:  # a model that has not answered yet
        connection, _ = upstream.accept()
        with connection:
            read_request(connection)
            upstream_asked.set()
            connection.settimeout(30)
            if connection.recv(1) == b"":  # llama-server stops a task whose client left
                closed.set()

    threading.Thread(target=generate_forever, daemon=True).start()
    base = f"http://127.0.0.1:{upstream.getsockname()[1]}/v1"
    with ModelMeter(base, tmp_path) as meter:
        replies: list[int | BaseException] = []

        def ask() -> None:
            try:  # loopback: no proxy from the environment may stand between
                with httpx.Client(trust_env=False, timeout=30) as http:
                    replies.append(
                        http.post(f"{meter.base_url}/chat/completions", json={}).status_code
                    )
            except httpx.HTTPError as exc:
                replies.append(exc)

        client = threading.Thread(target=ask)
        client.start()
        deadline = time.monotonic() + 20
        while not upstream_asked.is_set() and not replies and time.monotonic() < deadline:
            time.sleep(0.05)
        assert upstream_asked.is_set(), f"the request never reached the upstream: {replies}"
        meter.abort()
        assert closed.wait(10), "the upstream request is still open"
        client.join(10)
        assert replies == [502]
        assert meter.take().failed_calls == 1
    upstream.close()


def test_a_stream_the_client_stops_reading_is_counted_with_the_servers_figures(
    tmp_path: Path,
) -> None:
    """lsp-agent cuts a stream after a complete call: a reply, not a failed call."""
    upstream = socket.create_server(("127.0.0.1", 0))
    asked: list[bytes] = []

    def stream_slowly() -> None:
        connection, _ = upstream.accept()
        with connection, contextlib.suppress(OSError):
            asked.append(read_request(connection))
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
            for n in range(1, 50):
                timings = {"prompt_n": 40, "cache_n": 2, "predicted_n": n}
                chunk = {"choices": [{"delta": {"content": "x"}}], "timings": timings}
                connection.sendall(f"data: {json.dumps(chunk)}\n\n".encode())
                time.sleep(0.1)

    threading.Thread(target=stream_slowly, daemon=True).start()
    base = f"http://127.0.0.1:{upstream.getsockname()[1]}/v1"
    with ModelMeter(base, tmp_path) as meter:
        request = {"messages": [{"role": "user", "content": "hi"}], "stream": True}
        with (
            httpx.Client(trust_env=False, timeout=30) as http,
            http.stream("POST", f"{meter.base_url}/chat/completions", json=request) as reply,
        ):
            next(reply.iter_raw())  # the first chunk is enough
        deadline = time.monotonic() + 20
        while not meter._usage.calls and time.monotonic() < deadline:
            time.sleep(0.05)
        usage = meter.take()
    upstream.close()
    assert b'"timings_per_token": true' in asked[0]
    assert (usage.calls, usage.failed_calls) == (1, 0)
    assert usage.prompt_tokens == 42 and 1 <= usage.completion_tokens < 49
    assert usage.exchanges[0]["reply"]["content"].startswith("x")
