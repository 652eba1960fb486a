"""`lsp-agent acp` on bad input, over raw lines: malformed lines, non-requests, unknown
methods, bad parameters and unknown sessions are answered with JSON-RPC errors, and the
agent keeps serving; nothing but protocol messages reaches stdout."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from tests.acp.conftest import AGENT_COMMAND, APP, agent_env


class RawAgent:
    """`lsp-agent acp` as a subprocess; every stdout line must be a JSON object."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        import os

        self.process = subprocess.Popen(
            AGENT_COMMAND,
            cwd=cwd,
            env={**os.environ, **env},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        assert self.process.stdout is not None
        threading.Thread(target=self._pump, args=(self.process.stdout,), daemon=True).start()

    def _pump(self, stream: IO[bytes]) -> None:
        for line in stream:
            self.lines.put(line)

    def send_line(self, line: str | bytes) -> None:
        assert self.process.stdin is not None
        data = line if isinstance(line, bytes) else line.encode()
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_line(json.dumps({"jsonrpc": "2.0", **message}))

    def receive(self, timeout_s: float = 30.0) -> dict[str, Any]:
        line = self.lines.get(timeout=timeout_s)
        message = json.loads(line)  # stdout carries protocol messages only
        assert isinstance(message, dict)
        return message

    def response(self, request_id: Any, timeout_s: float = 30.0) -> dict[str, Any]:
        """The response to `request_id` (notifications on the way are skipped)."""
        while True:
            message = self.receive(timeout_s)
            if message.get("id") == request_id and "method" not in message:
                return message

    def close(self) -> str:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=20)
        finally:
            self.process.kill()
        assert self.process.stderr is not None
        return self.process.stderr.read().decode(errors="replace")


@pytest.fixture
def agent(tmp_path: Path, workspace: Path) -> Iterator[RawAgent]:
    raw = RawAgent(workspace, agent_env(tmp_path, [{"final_answer": "done"}]))
    yield raw
    raw.close()


def initialize(agent: RawAgent, request_id: int = 1) -> dict[str, Any]:
    agent.send({"id": request_id, "method": "initialize", "params": {"protocolVersion": 1}})
    return agent.response(request_id)


def start_prompt(agent: RawAgent, workspace: Path, text: str, request_id: int = 2) -> None:
    """A session in `workspace` (request `request_id`), then its prompt `text` (the next id)."""
    agent.send(
        {
            "id": request_id,
            "method": "session/new",
            "params": {"cwd": str(workspace), "mcpServers": []},
        }
    )
    session_id = agent.response(request_id)["result"]["sessionId"]
    agent.send(
        {
            "id": request_id + 1,
            "method": "session/prompt",
            "params": {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]},
        }
    )


def test_initialize_answers_protocol_version_1(agent: RawAgent) -> None:
    result = initialize(agent)["result"]
    assert result["protocolVersion"] == 1
    assert result["agentInfo"]["name"] == "lsp-agent"
    assert result["agentCapabilities"]["promptCapabilities"]["image"] is False


def test_a_line_that_is_not_json_gets_a_parse_error_and_serving_goes_on(agent: RawAgent) -> None:
    agent.send_line("this is not json {")
    error = agent.receive()
    assert error["id"] is None and error["error"]["code"] == -32700
    assert initialize(agent)["result"]["protocolVersion"] == 1


@pytest.mark.parametrize(
    "line",
    [
        "[1, 2, 3]",
        "42",
        '{"jsonrpc": "2.0", "id": 7}',
        '{"jsonrpc": "2.0", "id": 7, "method": 12}',
        '{"jsonrpc": "2.0", "id": {"x": 1}, "method": "initialize"}',
    ],
)
def test_json_that_is_not_a_message_gets_invalid_request(agent: RawAgent, line: str) -> None:
    agent.send_line(line)
    error = agent.receive()
    assert error["error"]["code"] == -32600
    assert error["id"] in (None, 7)
    assert initialize(agent, 2)["result"]["protocolVersion"] == 1


def test_unknown_methods_and_bad_params_are_answered(agent: RawAgent, workspace: Path) -> None:
    agent.send({"id": 1, "method": "no/such/method", "params": {}})
    assert agent.response(1)["error"]["code"] == -32601
    agent.send({"id": 2, "method": "session/load", "params": {"sessionId": "x", "cwd": "/"}})
    assert agent.response(2)["error"]["code"] == -32601  # not offered: loadSession is false
    agent.send(
        {"id": 3, "method": "session/new", "params": {"cwd": "relative/dir", "mcpServers": []}}
    )
    assert agent.response(3)["error"]["code"] == -32602
    agent.send({"id": 4, "method": "session/new", "params": {"mcpServers": []}})
    assert agent.response(4)["error"]["code"] == -32602  # cwd missing
    agent.send(
        {
            "id": 5,
            "method": "session/prompt",
            "params": {"sessionId": "sess_unknown", "prompt": [{"type": "text", "text": "hi"}]},
        }
    )
    assert agent.response(5)["error"]["code"] == -32602
    agent.send({"method": "session/cancel", "params": {"sessionId": "sess_unknown"}})
    start_prompt(agent, workspace, "hi", request_id=6)
    assert agent.response(7)["result"] == {"stopReason": "end_turn"}


def test_stdout_carries_only_protocol_messages(tmp_path: Path, workspace: Path) -> None:
    raw = RawAgent(workspace, agent_env(tmp_path, [{"final_answer": "done"}]))
    initialize(raw)
    start_prompt(raw, workspace, "hi")
    seen = []
    while True:
        message = raw.receive()  # json.loads on every line: anything else fails here
        seen.append(message)
        if message.get("id") == 3:
            break
    stderr = raw.close()
    assert seen[-1]["result"] == {"stopReason": "end_turn"}
    assert any(m.get("method") == "session/update" for m in seen)
    assert "acp: session" in stderr  # logs go to stderr


def test_a_client_that_goes_away_mid_prompt_stops_the_job(tmp_path: Path, workspace: Path) -> None:
    script = [
        {"tool": "read_file", "arguments": {"path": "app.py"}, "delay_s": 0.5},
        {
            "tool": "propose_patch",
            "arguments": {"path": "app.py", "old": "a - b", "new": "a + b"},
            "delay_s": 2.0,
        },
        {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
        {"final_answer": "done"},
    ]
    raw = RawAgent(workspace, agent_env(tmp_path, script))
    initialize(raw)
    start_prompt(raw, workspace, "fix")
    while raw.receive().get("method") != "session/update":
        pass  # the job has started
    stderr = raw.close()  # stdin closed: the agent must stop the job and exit
    assert raw.process.returncode == 0, stderr
    assert "prompt ended cancelled" in stderr  # stopped, not run to its end
    assert (workspace / "app.py").read_text() == APP


def test_requests_piped_before_end_of_input_are_all_answered(
    tmp_path: Path, workspace: Path
) -> None:
    import os

    lines = [
        json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
        ),
        "garbage",
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "no/such"}),
    ]
    done = subprocess.run(
        AGENT_COMMAND,
        cwd=workspace,
        env={**os.environ, **agent_env(tmp_path, [])},
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answers = {m["id"]: m for m in map(json.loads, done.stdout.splitlines())}
    assert answers[1]["result"]["protocolVersion"] == 1
    assert answers[None]["error"]["code"] == -32700
    assert answers[2]["error"]["code"] == -32601
