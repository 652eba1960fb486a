"""Past tool calls reach an OpenAI-compatible server as native tool_calls + tool messages."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from lsp_agent.agent.runtime import run_job
from lsp_agent.settings import Settings
from lsp_agent.testing import ScriptedOpenAIServer
from tests.jobs import disk_job


def _settings(server: ScriptedOpenAIServer) -> Settings:
    return Settings(
        model_id="openai/scripted",
        model_api_base=server.openai_base,
        sandbox_backend="none",
        phoenix_enabled=False,
        agent_max_steps=4,
    )


def test_second_request_carries_native_tool_calls(tmp_repo: Path) -> None:
    turns = [
        {"tool": "read_file", "arguments": {"path": "pkg/calc.py"}},
        {"final_answer": "It adds."},
    ]
    with ScriptedOpenAIServer(turns) as server:
        settings = _settings(server)
        result = run_job(disk_job("What does add do?", tmp_repo, settings))
        requests = list(server.chat_requests)
    assert result.status == "answered" and result.answer == "It adds."
    first, second = requests[0]["messages"], requests[1]["messages"]
    assert [m["role"] for m in first] == ["system", "user"]
    assert len(first[0]["content"]) < 400, "the system prompt is short"
    assistant = next(m for m in second if m.get("tool_calls"))
    call = assistant["tool_calls"][0]
    assert call["function"]["name"] == "read_file"
    assert '"pkg/calc.py"' in call["function"]["arguments"]
    tool = next(m for m in second if m["role"] == "tool")
    assert tool["tool_call_id"] == call["id"]
    assert "return a + b" in tool["content"]
    assert not any("Calling tools:" in str(m.get("content")) for m in second)
    read_file = next(t for t in requests[0]["tools"] if t["function"]["name"] == "read_file")
    assert read_file["function"]["parameters"] == {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "start_line": {"type": "integer"},
            "end_line": {"type": "integer"},
        },
        "required": ["path"],
    }, "compact schemas on the wire: no per-argument prose, no nullable"
    assert {t["function"]["name"] for t in requests[0]["tools"]} >= {
        "read_file",
        "propose_patch",
        "apply_patch",
        "run_tests",
        "final_answer",
    }


def test_a_failed_stream_is_asked_again_without_streaming_even_over_a_dropped_connection(
    tmp_repo: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """llama-cpp-python's server fails inside its stream and drops that connection: the
    request after it meets the closed connection once, then gets its answer."""
    turns = [
        {"empty": True},  # the stream: nothing in it
        {"drop_connection": True},  # the same request, not streamed: the dropped connection
        {"tool": "read_file", "arguments": {"path": "pkg/calc.py"}},  # once more: answered
        {"final_answer": "It adds."},
    ]
    with ScriptedOpenAIServer(turns) as server:
        settings = _settings(server)
        with caplog.at_level(logging.INFO, logger="lsp_agent"):
            result = run_job(disk_job("What does add do?", tmp_repo, settings))
        requests = list(server.chat_requests)
    assert result.status == "answered" and result.answer == "It adds."
    assert [bool(r.get("stream")) for r in requests] == [True, False, False, False]
    assert "model call" not in caplog.text  # no failure reached the model
    assert "streamed replies come back empty or broken" in caplog.text


def test_a_repeated_call_is_asked_again_of_the_server_at_a_higher_temperature(
    tmp_repo: Path,
) -> None:
    read = {"tool": "read_file", "arguments": {"path": "pkg/calc.py"}}
    turns = [read, read, {"final_answer": "It adds a and b."}]
    with ScriptedOpenAIServer(turns) as server:
        result = run_job(disk_job("What does add do?", tmp_repo, _settings(server)))
        requests = list(server.chat_requests)
    assert result.status == "answered" and result.answer == "It adds a and b."
    assert result.tools_used == ["read_file", "final_answer"]  # the repeat never ran
    assert [r["temperature"] for r in requests] == [0.1, 0.1, 0.7]
    assert [s.get("temperature") for s in result.model_stats] == [None, None, 0.7]
