"""ScriptedModel, SpyTool and the scripted HTTP endpoint; a 3-step ToolCallingAgent smoke test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from smolagents import ToolCallingAgent
from smolagents.models import ChatMessage, MessageRole
from smolagents.monitoring import LogLevel

from lsp_agent.models.scripted import (
    EXHAUSTED_ANSWER,
    ScriptedModel,
    ScriptedModelError,
    ScriptError,
    parse_turn,
)
from lsp_agent.testing import ScriptedOpenAIServer, SpyTool

USER = [ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "do it"}])]


def _tools() -> list[SpyTool]:
    return [SpyTool("read_file", {"path": "string"}, result="print('hi')")]


def test_scripted_model_replays_tool_calls_and_final_answers() -> None:
    model = ScriptedModel(
        [{"tool": "read_file", "arguments": {"path": "a.py"}}, {"final_answer": "done"}]
    )
    first = model.generate(USER, tools_to_call_from=_tools())
    assert first.tool_calls[0].function.name == "read_file"
    assert first.tool_calls[0].function.arguments == {"path": "a.py"}
    second = model.generate(USER, tools_to_call_from=_tools())
    assert second.tool_calls[0].function.name == "final_answer"
    assert second.tool_calls[0].function.arguments == {"answer": "done"}
    assert second.token_usage.input_tokens > 0
    assert model.call_count == 2
    assert model.calls[0].tool_names == ["read_file"]
    assert "do it" in model.calls[0].text()


def test_scripted_model_never_runs_out() -> None:
    model = ScriptedModel([])
    reply = model.generate(USER, tools_to_call_from=_tools())
    assert reply.tool_calls[0].function.name == "final_answer"
    assert EXHAUSTED_ANSWER in reply.tool_calls[0].function.arguments["answer"]
    plain = model.generate(USER)
    assert EXHAUSTED_ANSWER in plain.content


def test_scripted_model_text_error_and_dropped_connection_turns() -> None:
    model = ScriptedModel(
        [
            {"text": "just prose"},
            {"error": "error parsing tool call", "status": 500},
            {"drop_connection": True},
            {"tool": "read_file", "arguments": "{'path': 'a.py'"},
        ]
    )
    assert model.generate(USER, tools_to_call_from=_tools()).content == "just prose"
    with pytest.raises(ScriptedModelError) as error:
        model.generate(USER, tools_to_call_from=_tools())
    assert error.value.status_code == 500
    with pytest.raises(ConnectionError):
        model.generate(USER, tools_to_call_from=_tools())
    raw = model.generate(USER, tools_to_call_from=_tools())
    assert raw.tool_calls[0].function.arguments == "{'path': 'a.py'"


def test_scripted_model_from_json(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"tool": "git_status"}, {"final_answer": "ok"}]))
    model = ScriptedModel.from_json(script)
    assert model.remaining == 2
    assert model.model_id == f"scripted:{script}"
    (tmp_path / "bad.json").write_text(json.dumps([{"nonsense": 1}]))
    with pytest.raises(ScriptError, match="script turn 0"):
        ScriptedModel.from_json(tmp_path / "bad.json")
    with pytest.raises(ScriptError, match="cannot read"):
        ScriptedModel.from_json(tmp_path / "missing.json")


@pytest.mark.parametrize(
    "turn",
    ["text", {"tool": ""}, {"tool": "x", "arguments": 3}, {"text": 1}, {"error": "x", "status": 9}],
)
def test_invalid_turns_are_rejected(turn: object) -> None:
    with pytest.raises(ScriptError):
        parse_turn(turn)


def test_spy_tool_records_calls_and_raises_when_told() -> None:
    spy = SpyTool("run_tests", {"command": {"type": "string", "nullable": True}}, result="passed")
    assert spy(command="pytest") == "passed"
    assert spy.calls == [{"command": "pytest"}]
    computed = SpyTool("echo", {"text": "string"}, result=lambda text: text.upper())
    assert computed(text="hi") == "HI"
    failing = SpyTool("boom", {"x": "integer"}, raises=RuntimeError("no"))
    with pytest.raises(RuntimeError):
        failing(x=1)
    assert failing.call_count == 1


def test_three_step_task_with_a_real_tool_calling_agent() -> None:
    read = SpyTool("read_file", {"path": "string"}, result="def add(a, b): return a - b")
    patch = SpyTool(
        "propose_patch", {"path": "string", "old": "string", "new": "string"}, result="p1"
    )
    model = ScriptedModel(
        [
            {"tool": "read_file", "arguments": {"path": "calc.py"}},
            {
                "tool": "propose_patch",
                "arguments": {"path": "calc.py", "old": "a - b", "new": "a + b"},
            },
            {"final_answer": "Fixed add()."},
        ]
    )
    agent = ToolCallingAgent(
        tools=[read, patch], model=model, max_steps=5, verbosity_level=LogLevel.OFF
    )
    assert agent.run("Fix add") == "Fixed add()."
    assert read.calls == [{"path": "calc.py"}]
    assert patch.calls == [{"path": "calc.py", "old": "a - b", "new": "a + b"}]
    assert model.call_count == 3
    assert "def add(a, b): return a - b" in model.calls[1].text()
    assert set(model.calls[0].tool_names) == {"read_file", "propose_patch", "final_answer"}


# -- the scripted HTTP endpoint -----------------------------------------------------------------
def test_server_speaks_openai_chat_completions() -> None:
    turns = [
        {"tool": "read_file", "arguments": {"path": "a.py"}, "text": "reading"},
        {"text": "hi"},
    ]
    with ScriptedOpenAIServer(turns) as server:
        body = {"model": "scripted", "messages": [{"role": "user", "content": "x"}]}
        first = httpx.post(server.openai_base + "/chat/completions", json=body).json()
        message = first["choices"][0]["message"]
        assert message["content"] == "reading"
        call = message["tool_calls"][0]
        assert call["type"] == "function"
        assert json.loads(call["function"]["arguments"]) == {"path": "a.py"}
        assert first["choices"][0]["finish_reason"] == "tool_calls"
        assert first["usage"]["total_tokens"] > 0
        second = httpx.post(server.openai_base + "/chat/completions", json=body).json()
        assert second["choices"][0]["message"]["content"] == "hi"
        models = httpx.get(server.openai_base + "/models").json()
        assert models["data"][0]["id"] == "scripted"
        assert server.chat_requests == [body, body]
        assert server.remaining == 0


def test_server_streams_server_sent_events() -> None:
    with ScriptedOpenAIServer([{"tool": "git_status"}]) as server:
        body = {"model": "m", "stream": True, "messages": []}
        with httpx.stream("POST", server.openai_base + "/chat/completions", json=body) as reply:
            lines = [line for line in reply.iter_lines() if line.startswith("data: ")]
    assert lines[-1] == "data: [DONE]"
    chunks = [json.loads(line[6:]) for line in lines[:-1]]
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    assert any(
        d.get("tool_calls", [{}])[0].get("function", {}).get("name") == "git_status" for d in deltas
    )
    assert chunks[-1]["usage"]["total_tokens"] > 0


def test_server_errors_malformed_bodies_and_ollama_mode() -> None:
    turns = [
        {"error": "error parsing tool call", "status": 500},
        {"raw_body": "{not json"},
        {"empty": True},
        {"tool": "read_file", "arguments": {"path": "a.py"}},
    ]
    with ScriptedOpenAIServer(turns) as server:
        url = server.openai_base + "/chat/completions"
        failed = httpx.post(url, json={})
        assert failed.status_code == 500
        assert failed.json()["error"]["message"] == "error parsing tool call"
        assert httpx.post(url, json={}).text == "{not json"
        empty = httpx.post(url, json={}).json()["choices"][0]["message"]
        assert empty["content"] == "" and "tool_calls" not in empty
        ollama = httpx.post(server.base_url + "/api/chat", json={"model": "q", "messages": []})
        reply = ollama.json()
        assert reply["done"] is True
        assert reply["message"]["tool_calls"][0]["function"]["arguments"] == {"path": "a.py"}
        assert httpx.get(server.base_url + "/api/tags").json()["models"][0]["name"]


def test_server_can_drop_the_connection_and_answer_late() -> None:
    with ScriptedOpenAIServer(
        [{"drop_connection": True}, {"text": "late", "delay_s": 0.3}]
    ) as server:
        url = server.openai_base + "/chat/completions"
        with pytest.raises(httpx.HTTPError):
            httpx.post(url, json={})
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(url, json={}, timeout=0.1)
        server.add_turns([{"text": "again"}])
        assert httpx.post(url, json={}).json()["choices"][0]["message"]["content"] == "again"


def test_serve_openai_command_prints_its_port(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"final_answer": "from the script"}]))
    command = [sys.executable, "-m", "lsp_agent.testing", "serve-openai", "--script", str(script)]
    proc = subprocess.Popen(
        [*command, "--exit-on-stdin-close"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        reply = httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json={}, timeout=10)
        call = reply.json()["choices"][0]["message"]["tool_calls"][0]
        assert json.loads(call["function"]["arguments"]) == {"answer": "from the script"}
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0
    assert proc.stdout.read() == ""
