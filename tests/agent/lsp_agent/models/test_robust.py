"""RobustModel: every model problem becomes a recoverable step error the model reads next."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from smolagents import ToolCallingAgent
from smolagents.default_tools import FinalAnswerTool
from smolagents.models import ChatMessage, MessageRole, Model
from smolagents.monitoring import LogLevel
from smolagents.utils import AgentParsingError

from lsp_agent.models.robust import (
    FailureKind,
    ModelReplyError,
    RobustModel,
    UnusableReply,
    classify_model_exception,
)
from lsp_agent.models.scripted import ScriptedModel
from lsp_agent.testing import SpyTool

USER = [ChatMessage(role=MessageRole.USER, content="fix it")]


def _tools() -> list[Any]:
    return [
        SpyTool(
            "read_file",
            {
                "path": "string",
                "start_line": {"type": "integer", "nullable": True},
                "end_line": {"type": "integer", "nullable": True},
            },
        ),
        SpyTool("rg_search", {"pattern": "string", "glob": {"type": "string", "nullable": True}}),
        FinalAnswerTool(),
    ]


def _reply(*turns: Any, **options: Any) -> tuple[ChatMessage, RobustModel]:
    model = RobustModel(ScriptedModel(list(turns)), **options)
    return model.generate(USER, tools_to_call_from=_tools()), model


def _problem(message: ChatMessage, model: RobustModel) -> str:
    assert isinstance(message, UnusableReply)
    assert not message.tool_calls
    with pytest.raises(ModelReplyError) as error:
        model.parse_tool_calls(message)
    return str(error.value)


def _only_call(message: ChatMessage) -> tuple[str, Any]:
    assert not isinstance(message, UnusableReply), getattr(message, "problem", "")
    assert message.tool_calls is not None and len(message.tool_calls) == 1
    return message.tool_calls[0].function.name, message.tool_calls[0].function.arguments


def test_native_calls_pass_through_with_dict_arguments() -> None:
    message, model = _reply({"tool": "read_file", "arguments": '{"path": "a.py"}'})
    assert _only_call(message) == ("read_file", {"path": "a.py"})
    assert model.events == []


class _FixedReply(Model):  # type: ignore[misc]
    def __init__(self, reply: ChatMessage) -> None:
        super().__init__(model_id="fixed")
        self.reply = reply

    def generate(self, *args: Any, **kwargs: Any) -> ChatMessage:
        return self.reply


@pytest.mark.parametrize(
    ("text", "replayed"),
    [
        ('```json\n{"name": "read_file", "arguments": {"path": "a.py"}}\n```', None),
        ('{"name": "read_file", "arguments": {"path": "a.py"}}', None),
        (
            'I will read it.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}',
            "I will read it.",
        ),
        # Qwen2.5-Coder-1.5B through llama-server (L3, 2026-11-28): an empty tag pair before
        # the call, replayed, was copied at the start of every reply after it, then written
        # alone, without the call, until the step limit
        ('<tools></tools>\n{"name": "read_file", "arguments": {"path": "a.py"}}', None),
        (
            '<tools></tools>\n\n```json\n{"name": "read_file", "arguments": {"path": "a.py"}}\n```',
            None,
        ),
        (
            '<b>Reading</b> it.\n{"name": "read_file", "arguments": {"path": "a.py"}}',
            "<b>Reading</b> it.",
        ),
    ],
)
def test_a_call_written_as_text_is_replayed_once_as_the_native_call(
    text: str, replayed: str | None
) -> None:
    # with the text kept too, the chat template showed the call twice (the text, then the
    # native call), and Qwen2.5-Coder-1.5B through llama-server repeated its last call
    message, _ = _reply({"text": text})
    assert _only_call(message) == ("read_file", {"path": "a.py"})
    assert message.content == replayed


def test_native_call_ids_and_token_usage_are_kept() -> None:
    from smolagents.models import ChatMessageToolCall, ChatMessageToolCallFunction
    from smolagents.monitoring import TokenUsage

    call = ChatMessageToolCall(
        id="call_abc",
        type="function",
        function=ChatMessageToolCallFunction(name="rg_search", arguments={"pattern": "x"}),
    )
    inner = ChatMessage(
        role=MessageRole.ASSISTANT,
        content="searching",
        tool_calls=[call],
        token_usage=TokenUsage(input_tokens=120, output_tokens=7),
    )
    model = RobustModel(_FixedReply(inner))
    reply = model.generate(USER, tools_to_call_from=_tools())
    assert reply.tool_calls[0].id == "call_abc"
    assert reply.content == "searching"
    assert (model.token_usage.input_tokens, model.token_usage.output_tokens) == (120, 7)
    assert model.model_id == "fixed"


def test_text_calls_become_native_calls_and_the_repair_is_recorded() -> None:
    message, model = _reply(
        {"text": "```json\n{'name': 'read_file', 'arguments': {'path': 'a.py',}}\n```"}
    )
    assert _only_call(message) == ("read_file", {"path": "a.py"})
    assert model.events[0].kind == "repaired"
    assert "single quotes" in model.events[0].detail


def test_broken_native_argument_text_is_repaired_or_explained() -> None:
    repaired, _ = _reply({"tool": "read_file", "arguments": "{'path': 'a.py'"})
    assert _only_call(repaired) == ("read_file", {"path": "a.py"})
    broken, model = _reply({"tool": "read_file", "arguments": "{path: a.py b}"})
    assert "arguments of read_file could not be read" in _problem(broken, model)


@pytest.mark.parametrize(
    ("turn", "kind", "phrase"),
    [
        ({"text": "I will look at the file."}, FailureKind.NO_TOOL_CALL, "it had no tool call"),
        ({"empty": True}, FailureKind.EMPTY_REPLY, "it was empty"),
        ({"text": "<tools></tools>\n"}, FailureKind.EMPTY_REPLY, "it was empty"),
        ({"error": "error parsing tool call: raw='{'"}, FailureKind.HTTP_ERROR, "not valid JSON"),
        ({"error": "overloaded", "status": 503}, FailureKind.HTTP_ERROR, "HTTP 503"),
        ({"drop_connection": True}, FailureKind.CONNECTION, "connection"),
        (
            {"tool": "reed_file", "arguments": {"path": "a.py"}},
            FailureKind.UNKNOWN_TOOL,
            "closest: read_file",
        ),
        (
            {"tool": "read_file", "arguments": {"file_path": "a.py"}},
            FailureKind.BAD_ARGUMENTS,
            "did you mean `path`?",
        ),
        ({"tool": "read_file", "arguments": {}}, FailureKind.BAD_ARGUMENTS, "read_file needs path"),
        (
            {"tool": "final_answer", "arguments": {}},
            FailureKind.BAD_ARGUMENTS,
            "final_answer needs answer",
        ),
        (
            {"tool": "rg_search", "arguments": '["x", "*.py", "extra"]'},
            FailureKind.BAD_ARGUMENTS,
            "by name",
        ),
        (
            {
                "tool_calls": [
                    {"tool": "rg_search", "arguments": {"pattern": "x"}},
                    {"tool": "final_answer", "arguments": {"answer": "a"}},
                ]
            },
            FailureKind.BAD_ARGUMENTS,
            "only call",
        ),
    ],
)
def test_unusable_replies_become_a_recovery_message(
    turn: dict[str, Any], kind: FailureKind, phrase: str
) -> None:
    message, model = _reply(turn, max_calls_per_reply=2)
    problem = _problem(message, model)
    assert problem.startswith("Your last reply could not be used: ")
    assert phrase in problem
    assert 'e.g. {"name": "read_file", "arguments": {"path": "<path>"}}' in problem
    assert model.events[-1].kind == kind.value
    assert len(problem) < 700


def test_prose_without_a_call_is_told_how_to_answer_or_call() -> None:
    message, model = _reply({"text": "The proposed patch does not apply because of line 2."})
    problem = _problem(message, model)
    assert 'give it with {"name": "final_answer", "arguments": {"answer": "<your answer>"}}' in (
        problem
    )
    assert 'reply with one tool call, e.g. {"name": "read_file"' in problem


@pytest.mark.parametrize(
    "text",
    ["final_answer: 42", "Final answer: The value is 42.", '{"answer": "It is 42."}'],
)
def test_text_that_says_it_is_the_answer_is_the_final_answer(text: str) -> None:
    message, _ = _reply({"text": text})
    (call,) = message.tool_calls
    assert call.function.name == "final_answer"
    assert "42" in call.function.arguments["answer"]


def test_unknown_tool_lists_the_available_tools() -> None:
    message, model = _reply({"tool": "search_code", "arguments": {"pattern": "x"}})
    problem = _problem(message, model)
    assert "there is no tool `search_code`" in problem
    assert "Tools: read_file, rg_search, final_answer" in problem


def test_repairs_final_answer_argument_and_number_strings() -> None:
    answer, _ = _reply({"tool": "final_answer", "arguments": {"result": "done"}})
    assert _only_call(answer) == ("final_answer", {"answer": "done"})
    positional, _ = _reply({"tool": "final_answer", "arguments": "all done"})
    assert _only_call(positional) == ("final_answer", {"answer": "all done"})
    numbers, model = _reply(
        {"tool": "read_file", "arguments": {"path": "a.py", "start_line": "10"}}
    )
    assert _only_call(numbers) == ("read_file", {"path": "a.py", "start_line": 10})
    assert "as integer" in model.events[-1].detail


def test_extra_calls_beyond_the_limit_are_dropped() -> None:
    calls = [{"tool": "rg_search", "arguments": {"pattern": p}} for p in ("a", "b", "c")]
    message, model = _reply({"tool_calls": calls})
    assert _only_call(message) == ("rg_search", {"pattern": "a"})
    assert "kept the first 1 of 3 calls" in model.events[-1].detail


def test_prose_can_be_read_as_the_final_answer_when_asked() -> None:
    message, _ = _reply({"text": "The bug is on line 3."}, prose_is_final_answer=True)
    assert _only_call(message) == ("final_answer", {"answer": "The bug is on line 3."})


def test_huge_unusable_replies_are_cut_before_they_are_replayed() -> None:
    message, _ = _reply({"text": "blah " * 10_000}, max_echo_chars=200)
    assert isinstance(message.content, str)
    assert len(message.content) < 300
    assert "more characters cut" in message.content


def test_without_tools_the_text_passes_through_and_errors_become_text() -> None:
    model = RobustModel(
        ScriptedModel([{"text": "summary"}, {"error": "boom", "status": 500}, {"empty": True}])
    )
    assert model.generate(USER).content == "summary"
    failed = model.generate(USER)
    assert "HTTP 500" in failed.content
    assert model.generate(USER).content == "(the model gave an empty answer)"


def test_parse_tool_calls_reads_plain_messages_too() -> None:
    model = RobustModel(ScriptedModel([]))
    plain = ChatMessage(
        role=MessageRole.ASSISTANT, content='{"name": "git_status", "arguments": {}}'
    )
    parsed = model.parse_tool_calls(plain)
    assert parsed.tool_calls[0].function.name == "git_status"
    with pytest.raises(ModelReplyError, match="no tool call found"):
        model.parse_tool_calls(ChatMessage(role=MessageRole.ASSISTANT, content="hmm"))


def test_token_usage_is_counted_and_failures_count_zero() -> None:
    model = RobustModel(ScriptedModel([{"text": "abc"}, {"error": "x"}, {"final_answer": "ok"}]))
    for _ in range(3):
        reply = model.generate(USER, tools_to_call_from=_tools())
        assert reply.token_usage is not None
    assert model.token_usage.input_tokens > 0
    assert model.token_usage.output_tokens > 0
    assert model.generate_calls == 3


class _Refusing(Model):  # type: ignore[misc]
    def generate(self, *args: Any, **kwargs: Any) -> ChatMessage:
        try:
            raise ConnectionRefusedError(111, "Connection refused")
        except ConnectionRefusedError as exc:
            raise httpx.ConnectError("[Errno 111] Connection refused") from exc


def test_connection_refused_at_the_first_call_is_flagged() -> None:
    model = RobustModel(_Refusing(model_id="x"))
    reply = model.generate(USER, tools_to_call_from=_tools())
    assert model.first_call_unreachable
    assert model.events[0].kind == FailureKind.UNREACHABLE.value
    assert "refused the connection" in _problem(reply, model)


class _StatusError(Exception):
    def __init__(self, message: str, status_code: int) -> None:
        super().__init__(message)
        self.status_code = status_code


def _chained(outer: Exception, inner: BaseException) -> Exception:
    outer.__cause__ = inner
    return outer


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (httpx.ConnectError("[Errno 111] Connection refused"), FailureKind.UNREACHABLE),
        (
            _chained(
                RuntimeError("Connection error."), httpx.ConnectError("Name or service not known")
            ),
            FailureKind.UNREACHABLE,
        ),
        (httpx.ReadTimeout("timed out"), FailureKind.TIMEOUT),
        (TimeoutError(), FailureKind.TIMEOUT),
        (
            _chained(
                _StatusError("Connection error.", 500), httpx.RemoteProtocolError("disconnected")
            ),
            FailureKind.CONNECTION,
        ),
        (
            _StatusError("litellm.InternalServerError: OllamaException - boom", 500),
            FailureKind.HTTP_ERROR,
        ),
        (
            _StatusError("OpenAIException - Expecting value: line 1 column 1", 500),
            FailureKind.BAD_RESPONSE,
        ),
        (
            RuntimeError("Unexpected API response: model returned no choices."),
            FailureKind.BAD_RESPONSE,
        ),
        (KeyError("choices"), FailureKind.MODEL_ERROR),
    ],
)
def test_classify_model_exceptions(exc: Exception, kind: FailureKind) -> None:
    found, reason = classify_model_exception(exc)
    assert found is kind
    assert reason and len(reason) < 400


def test_http_status_reason_is_cleaned_of_library_prefixes() -> None:
    _, reason = classify_model_exception(
        _StatusError("litellm.InternalServerError: Ollama_chatException - model is loading", 500)
    )
    assert reason == "the model server answered HTTP 500: model is loading"


def test_agent_run_survives_every_kind_of_bad_reply_and_shows_the_hint() -> None:
    read = SpyTool("read_file", {"path": "string"}, result="contents of a.py")
    scripted = ScriptedModel(
        [
            {"text": "Let me think."},
            {"error": "error parsing tool call", "status": 500},
            {"drop_connection": True},
            {"tool": "reed_file", "arguments": {"path": "a.py"}},
            {"tool": "read_file", "arguments": {"file": "a.py"}},
            {"text": 'read_file(path="a.py")'},
            {"final_answer": "done"},
        ]
    )
    agent = ToolCallingAgent(
        tools=[read], model=RobustModel(scripted), max_steps=10, verbosity_level=LogLevel.OFF
    )
    assert agent.run("read a.py") == "done"
    assert read.calls == [{"path": "a.py"}]
    errors = [step.error for step in agent.memory.steps if getattr(step, "error", None)]
    assert len(errors) == 5
    assert all(isinstance(e, AgentParsingError) for e in errors)
    second_prompt = scripted.calls[1].text()
    assert "Your last reply could not be used: it had no tool call" in second_prompt
    assert "closest: read_file" in scripted.calls[4].text()


def test_agent_run_ends_at_max_steps_when_the_model_never_recovers() -> None:
    scripted = ScriptedModel([{"error": "boom", "status": 500}] * 10)
    agent = ToolCallingAgent(
        tools=[], model=RobustModel(scripted), max_steps=3, verbosity_level=LogLevel.OFF
    )
    result = agent.run("anything", return_full_result=True)
    assert result.state == "max_steps_error"
    assert "HTTP 500" in str(result.output)
    assert result.token_usage is not None
