"""Capability fallbacks against a scripted OpenAI-compatible server on 127.0.0.1 that refuses
requests the way real servers do (llama-cpp-python's 500s, a strict server's 400/422)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from smolagents.models import ChatMessage, MessageRole

from lsp_agent.models.capabilities import CapabilityMemory, http_status
from lsp_agent.models.factory import build_model
from lsp_agent.settings import Settings
from lsp_agent.testing import ScriptedOpenAIServer, SpyTool
from lsp_agent.testing.server_quirks import always_fails, llama_cpp_python, rejects_parameter

USER = [ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "read a.py"}])]
SYSTEM = ChatMessage(role=MessageRole.SYSTEM, content=[{"type": "text", "text": "You fix code."}])
READ_CALL = {"tool": "read_file", "arguments": {"path": "a.py"}}


def _tools() -> list[Any]:
    return [SpyTool("read_file", {"path": "string"})]


def _settings(server: ScriptedOpenAIServer) -> Settings:
    return Settings(model_id="openai/smollm2", model_api_base=server.openai_base)


def _model(server: ScriptedOpenAIServer, memory: CapabilityMemory, constrained: bool) -> Any:
    return build_model(
        _settings(server).model_config(), constrained_calls=constrained, capabilities=memory
    )


def _tool_name(reply: ChatMessage) -> str:
    assert reply.tool_calls, reply
    return str(reply.tool_calls[0].function.name)


def test_llama_cpp_python_plain_mode_falls_back_to_tool_choice_auto(
    caplog: pytest.LogCaptureFixture,
) -> None:
    memory = CapabilityMemory()
    with ScriptedOpenAIServer([READ_CALL, READ_CALL], rejects=llama_cpp_python) as server:
        caplog.set_level(logging.WARNING, logger="lsp_agent.models.capabilities")
        reply = _model(server, memory, False).generate(USER, tools_to_call_from=_tools())
        assert _tool_name(reply) == "read_file"
        bodies = server.chat_requests
        assert [b["tool_choice"] for b in bodies] == ["required", "auto"]
        assert bodies[0]["parallel_tool_calls"] is False
        # the next job of the session starts from what was learnt: one request, no rejection
        again = _model(server, memory, False).generate(USER, tools_to_call_from=_tools())
        assert _tool_name(again) == "read_file"
        assert [b["tool_choice"] for b in server.chat_requests] == ["required", "auto", "auto"]
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1, warnings
    assert "tool_choice=required" in warnings[0]
    assert "tool_choice=auto" in warnings[0]
    assert server.openai_base in warnings[0]


def test_llama_cpp_python_constrained_mode_states_the_schema_in_the_prompt() -> None:
    memory = CapabilityMemory()
    with ScriptedOpenAIServer([READ_CALL, READ_CALL], rejects=llama_cpp_python) as server:
        model = _model(server, memory, True)
        reply = model.generate([SYSTEM, *USER], tools_to_call_from=_tools())
        assert _tool_name(reply) == "read_file"
        bodies = server.chat_requests
        kinds = [(b["response_format"]["type"], b["tool_choice"]) for b in bodies]
        assert kinds == [
            ("json_schema", "required"),  # 500 naming response_format
            ("json_object", "required"),  # 500 with an empty message: tool_choice guessed
            ("json_object", "auto"),
        ]
        system = bodies[-1]["messages"][0]
        assert system["role"] == "system"
        assert system["content"].startswith("You fix code.")
        assert "one JSON object" in system["content"]
        assert '"read_file"' in system["content"]
        assert "one JSON object" not in str(bodies[0]["messages"])
        model.generate([SYSTEM, *USER], tools_to_call_from=_tools())
        assert len(server.chat_requests) == 4
    downgrades = next(iter(memory.downgrades().values()))
    assert [(d.parameter, d.after) for d in downgrades] == [
        ("response_format", "json_object"),
        ("tool_choice", "auto"),
    ]


def test_a_server_refusing_json_object_too_gets_no_response_format_but_keeps_the_schema() -> None:
    def refuses_any_response_format(body: Any) -> Any:
        if isinstance(body, dict) and "response_format" in body:
            return 422, {"detail": [{"loc": ["body", "response_format"], "msg": "extra field"}]}
        return None

    with ScriptedOpenAIServer([READ_CALL], rejects=refuses_any_response_format) as server:
        reply = _model(server, CapabilityMemory(), True).generate(USER, tools_to_call_from=_tools())
        assert _tool_name(reply) == "read_file"
        bodies = server.chat_requests
        assert [b.get("response_format", {}).get("type") for b in bodies] == [
            "json_schema",
            "json_object",
            None,
        ]
        assert "one JSON object" in bodies[-1]["messages"][0]["content"]


@pytest.mark.parametrize("status", [400, 422])
def test_a_strict_server_rejecting_parallel_tool_calls_gets_requests_without_it(
    status: int,
) -> None:
    quirk = rejects_parameter("parallel_tool_calls", status)
    with ScriptedOpenAIServer([READ_CALL], rejects=quirk) as server:
        model = _model(server, CapabilityMemory(), False)
        assert _tool_name(model.generate(USER, tools_to_call_from=_tools())) == "read_file"
        bodies = server.chat_requests
        assert ["parallel_tool_calls" in b for b in bodies] == [True, False]
        assert [b["tool_choice"] for b in bodies] == ["required", "required"]


@pytest.mark.parametrize(
    ("status", "message"),
    [(500, "CUDA out of memory"), (400, "context length exceeded"), (503, "")],
)
def test_an_unrelated_error_is_raised_after_one_request(status: int, message: str) -> None:
    memory = CapabilityMemory()
    with ScriptedOpenAIServer([READ_CALL], rejects=always_fails(status, message)) as server:
        model = _model(server, memory, True)
        with pytest.raises(Exception) as raised:
            model.generate(USER, tools_to_call_from=_tools())
        assert http_status(raised.value) == status
        assert len(server.chat_requests) == 1
    assert memory.downgrades() == {}


def test_an_empty_500_that_a_guess_does_not_cure_is_guessed_once_and_undone() -> None:
    memory = CapabilityMemory()
    with ScriptedOpenAIServer([READ_CALL], rejects=always_fails(500, "")) as server:
        model = _model(server, memory, False)
        for _ in range(3):
            with pytest.raises(Exception) as raised:
                model.generate(USER, tools_to_call_from=_tools())
            assert http_status(raised.value) == 500
        # one guess (tool_choice auto) in the whole session, then every call is one request
        assert [b["tool_choice"] for b in server.chat_requests] == [
            "required",
            "auto",
            "required",
            "required",
        ]
    assert memory.downgrades() == {}


def test_the_closing_summary_without_tools_is_untouched() -> None:
    with ScriptedOpenAIServer([{"text": "done"}], rejects=llama_cpp_python) as server:
        reply = _model(server, CapabilityMemory(), True).generate(USER)
        assert reply.content == "done"
        (body,) = server.chat_requests
        assert "tool_choice" not in body
        assert "response_format" not in body
        assert "parallel_tool_calls" not in body


def test_ollama_ids_never_get_parallel_tool_calls() -> None:
    with ScriptedOpenAIServer([READ_CALL]) as server:
        settings = Settings(model_id="ollama_chat/qwen2.5-coder:7b", model_api_base=server.base_url)
        model = build_model(settings.model_config(), capabilities=CapabilityMemory())
        assert _tool_name(model.generate(USER, tools_to_call_from=_tools())) == "read_file"
        (body,) = server.chat_requests
        assert "parallel_tool_calls" not in body


def test_a_reply_that_loops_under_tool_choice_required_moves_the_session_to_auto() -> None:
    # llama-server with Qwen2.5-Coder-1.5B: under `required` the model answered
    # "final_answer: 42.0.0.0…" to max_tokens; under `auto` it answered "final_answer: 42".
    memory = CapabilityMemory()
    looping = {"text": "final_answer: 42" + ".0" * 300}
    with ScriptedOpenAIServer([looping, READ_CALL]) as server:
        model = _model(server, memory, False)
        reply = model.generate(USER, tools_to_call_from=_tools())
        assert reply.raw.choices[0].finish_reason == "cut"
        assert len(str(reply.content)) < 120  # read no further than the loop
        assert _tool_name(model.generate(USER, tools_to_call_from=_tools())) == "read_file"
        assert [b["tool_choice"] for b in server.chat_requests] == ["required", "auto"]
    (downgrade,) = next(iter(memory.downgrades().values()))
    assert "looped under tool_choice=required" in downgrade.describe()
