"""Bad input gets proper JSON-RPC errors (or is dropped when there is no id to answer) and
the server keeps serving: a fuzz run of malformed messages, then a normal code action."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.lsp.conftest import job_end, use_script
from tests.lsp.editor import REAL_SERVER, SERVER_ENV, EditorClient
from tests.lsp.framing import frame, parse_frames

FUZZ_MESSAGES = 1200


def raw_frame(body: bytes, extra_header: bytes = b"") -> bytes:
    return extra_header + b"Content-Length: %d\r\n\r\n" % len(body) + body


def init(root: Path) -> list[dict[str, Any]]:
    return [
        {
            "jsonrpc": "2.0",
            "id": "init",
            "method": "initialize",
            "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": {}},
        },
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    ]


def code_action(msg_id: str, uri: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": msg_id,
        "method": "textDocument/codeAction",
        "params": {
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}},
            "context": {"diagnostics": []},
        },
    }


def finish() -> list[dict[str, Any]]:
    return [
        {"jsonrpc": "2.0", "id": "bye", "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]


def run_server(root: Path, data: bytes) -> tuple[list[dict[str, Any]], bytes, int]:
    env = {**SERVER_ENV, "LOG_LEVEL": "WARNING"}
    proc = subprocess.run(
        REAL_SERVER, input=data, capture_output=True, timeout=300, env=env, cwd=root
    )
    return parse_frames(proc.stdout), proc.stderr, proc.returncode


BAD_VALUES: list[Any] = [
    None,
    0,
    -1,
    3.5,
    "x",
    "",
    [],
    [1, "a"],
    {},
    {"a": 1},
    True,
    {"uri": 5},
    {"line": "one"},
    "\u0000",
    "😀" * 3,
]
REQUESTS = ["textDocument/codeAction", "workspace/executeCommand"]
NOTIFICATIONS = [
    "textDocument/didOpen",
    "textDocument/didChange",
    "textDocument/didClose",
    "workspace/didChangeConfiguration",
    "$/cancelRequest",
    "$/setTrace",
]
COMMANDS = ["lspAgent.run", "lspAgent.cancel", "lspAgent.approve", "lspAgent.reject", "nope"]


def malformed(rng: random.Random, n: int) -> tuple[bytes, int | None]:
    """One malformed frame and the request id that must be answered (None: no answer)."""
    kind = n % 11
    bad = rng.choice(BAD_VALUES)
    if kind == 0:  # not JSON at all / truncated JSON
        text = rng.choice(['{"jsonrpc": "2.0", "id": ', "{{{", "nul", '{"a":}', "]["])
        return raw_frame(text.encode() + bytes(rng.randrange(32, 127) for _ in range(5))), None
    if kind == 1:  # JSON, but not a JSON-RPC object
        return raw_frame(json.dumps(rng.choice([1, "s", None, [1, 2], True, [{}]])).encode()), None
    if kind == 2:  # wrong protocol version
        body = {"jsonrpc": "1.0", "id": n, "method": "textDocument/codeAction", "params": {}}
        return raw_frame(json.dumps(body).encode()), n
    if kind == 3:  # unknown method
        body = {"jsonrpc": "2.0", "id": n, "method": f"fuzz/method{n}", "params": bad}
        return raw_frame(json.dumps(body).encode()), n
    if kind == 4:  # known request, wrong parameter types
        body = {
            "jsonrpc": "2.0",
            "id": n,
            "method": rng.choice(REQUESTS),
            "params": rng.choice(
                [
                    bad,
                    {"textDocument": bad, "range": bad, "context": bad},
                    {"command": bad, "arguments": bad},
                ]
            ),
        }
        return raw_frame(json.dumps(body).encode()), n
    if kind == 5:  # notifications with wrong params
        body = {
            "jsonrpc": "2.0",
            "method": rng.choice(NOTIFICATIONS),
            "params": rng.choice([bad, {"textDocument": bad, "contentChanges": bad}]),
        }
        return raw_frame(json.dumps(body).encode()), None
    if kind == 6:  # commands with wrong arguments
        arguments = rng.choice([bad, [bad], [bad, bad], [{"task": bad, "range": bad}]])
        body = {
            "jsonrpc": "2.0",
            "id": n,
            "method": "workspace/executeCommand",
            "params": {"command": rng.choice(COMMANDS), "arguments": arguments},
        }
        return raw_frame(json.dumps(body).encode()), n
    if kind == 7:  # not UTF-8
        return raw_frame(b'{"jsonrpc": "2.0", "id": 1, "method": "\xff\xfe"}'), None
    if kind == 8:  # a response nobody asked for
        return raw_frame(
            json.dumps({"jsonrpc": "2.0", "id": 10**6 + n, "result": bad}).encode()
        ), None
    if kind == 9:  # absurd nesting
        return raw_frame(b"[" * 5000 + b"]" * 5000), None
    body = {
        "jsonrpc": "2.0",
        "id": n,
        "method": "textDocument/codeAction",  # junk header too
        "params": {
            "textDocument": {"uri": "file:///nowhere.py"},
            "range": bad,
            "context": {"diagnostics": bad},
        },
    }
    return raw_frame(json.dumps(body).encode(), b"X-Junk: yes\r\n"), n


def test_fuzzed_malformed_messages_then_a_code_action_still_answers(tmp_path: Path) -> None:
    rng = random.Random(7)
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    uri = (tmp_path / "a.py").as_uri()
    frames, expected = [], set()
    for n in range(1, FUZZ_MESSAGES + 1):
        data, answer_id = malformed(rng, n)
        frames.append(data)
        if answer_id is not None:
            expected.add(answer_id)
    opened = {
        "jsonrpc": "2.0",
        "method": "textDocument/didOpen",
        "params": {
            "textDocument": {
                "uri": uri,
                "languageId": "python",
                "version": 1,
                "text": "def f():\n    return 1\n",
            }
        },
    }
    data = b"".join(frame(m) for m in init(tmp_path)) + b"".join(frames)
    data += b"".join(frame(m) for m in [opened, code_action("final", uri), *finish()])

    messages, stderr, returncode = run_server(tmp_path, data)

    assert returncode == 0, stderr[-3000:].decode(errors="replace")
    responses: dict[Any, list[dict[str, Any]]] = {}
    for message in messages:
        if "id" in message and "method" not in message:
            responses.setdefault(message["id"], []).append(message)
    missing = sorted(expected - set(responses))
    assert not missing, f"requests never answered: {missing[:20]}"
    assert all(len(v) == 1 for v in responses.values()), "a request answered twice"
    final = responses["final"][0]
    assert "Agent: explain" in [a["title"] for a in final["result"]]
    assert responses["bye"][0]["result"] is None
    errors = [
        r[0]["error"]["code"] for k, r in responses.items() if k in expected and "error" in r[0]
    ]
    assert {-32600, -32601, -32602} <= set(errors)
    shown = [m for m in messages if m.get("method") == "window/showMessage"]
    assert len(shown) <= 1, "malformed input must not flood the user with messages"


def test_specific_errors(tmp_path: Path) -> None:
    uri = (tmp_path / "a.py").as_uri()
    data = b"".join(
        frame(m)
        for m in [
            *init(tmp_path),
            {"jsonrpc": "2.0", "id": 1, "method": "no/such/method", "params": {}},
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "textDocument/codeAction",
                "params": {"textDocument": 5, "range": "all"},
            },
            {"jsonrpc": "1.0", "id": 3, "method": "textDocument/codeAction", "params": {}},
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "workspace/executeCommand",
                "params": {"command": "lspAgent.run", "arguments": [{"task": 42}]},
            },
            code_action("ok", uri),
            {"jsonrpc": "2.0", "id": "down", "method": "shutdown"},
            code_action("late", uri),
            {"jsonrpc": "2.0", "method": "exit"},
        ]
    )
    messages, stderr, returncode = run_server(tmp_path, data)
    assert returncode == 0, stderr.decode(errors="replace")
    by_id = {m["id"]: m for m in messages if "id" in m and "method" not in m}
    assert by_id[1]["error"]["code"] == -32601
    assert by_id[2]["error"]["code"] == -32602
    assert "Invalid params for textDocument/codeAction" in by_id[2]["error"]["message"]
    assert by_id[3]["error"]["code"] == -32600
    assert by_id[4]["error"]["code"] == -32602 and "`task`" in by_id[4]["error"]["message"]
    assert isinstance(by_id["ok"]["result"], list)
    assert by_id["late"]["error"]["code"] == -32600
    assert "shutting down" in by_id["late"]["error"]["message"]


async def test_huge_document(editor: EditorClient, workspace: Path) -> None:
    line = "value = 'ünïcödé 😀' * 3  # padding padding padding padding\n"
    text = "def big():\n" + "    " + line * 60_000  # ~4 MB
    uri = editor.open("big.py", text)
    end = types.Position(60_001, 0)
    editor.type_text(uri, types.Range(end, end), "# tail\n")
    result = await editor.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(30_000, 4), types.Position(30_000, 9)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    titles = [a.title for a in result or []]
    assert "Agent: explain" in titles and "Agent: refactor selection" in titles
    assert (await editor.command("lspAgent.status"))["jobs"] == []


async def test_requests_after_a_crashed_job(editor: EditorClient) -> None:
    use_script(editor, [{"tool": "crash"}])
    started = await editor.run(task="crash")
    assert (await job_end(editor, started["jobId"])).type == types.MessageType.Error
    status = await editor.command("lspAgent.status")
    assert status["lastJob"]["status"] == "failed" and status["jobs"] == []
    with pytest.raises(JsonRpcException):
        await editor.command("lspAgent.cancel", {"jobId": "nope"})
    uri = editor.open("app.py")
    result = await editor.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(1, 0), types.Position(1, 4)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert result


def test_server_survives_stdin_closing_mid_message(tmp_path: Path) -> None:
    data = b"".join(frame(m) for m in init(tmp_path)) + b'Content-Length: 500\r\n\r\n{"jsonr'
    env = {**os.environ, **SERVER_ENV}
    proc = subprocess.run(REAL_SERVER, input=data, capture_output=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert parse_frames(proc.stdout)[0]["id"] == "init"
