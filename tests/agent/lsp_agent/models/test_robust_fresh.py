"""A reply the agent calls stale is decoded again, hotter (`models.robust.fresh`)."""

from __future__ import annotations

from typing import Any

from smolagents.default_tools import FinalAnswerTool
from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
)

from lsp_agent.models.robust import RobustModel
from lsp_agent.models.robust.fresh import RETRY_TEMPERATURES, leaving_out, stale_tools
from lsp_agent.models.scripted import ScriptedModel
from lsp_agent.testing import SpyTool

USER = [ChatMessage(role=MessageRole.USER, content="fix it")]
READ_A = {"tool": "read_file", "arguments": {"path": "a.py"}}
READ_B = {"tool": "read_file", "arguments": {"path": "b.py"}}


def _tools() -> list[Any]:
    return [SpyTool("read_file", {"path": "string"}), FinalAnswerTool()]


def _reads_a(reply: ChatMessage) -> str | None:
    calls = reply.tool_calls or []
    if calls and calls[0].function.arguments == {"path": "a.py"}:
        return "it reads a.py again"
    return None


def _model(*turns: Any) -> tuple[RobustModel, ScriptedModel]:
    inner = ScriptedModel(list(turns), varies_with_temperature=True)
    model = RobustModel(inner)
    model.stale_reply = _reads_a
    return model, inner


def _path(reply: ChatMessage) -> Any:
    assert reply.tool_calls
    return reply.tool_calls[0].function.arguments["path"]


def test_a_stale_reply_is_decoded_again_at_a_higher_temperature() -> None:
    model, inner = _model(READ_A, READ_B)
    reply = model.generate(USER, tools_to_call_from=_tools(), temperature=0.1)
    assert _path(reply) == "b.py"
    assert [call.kwargs.get("temperature") for call in inner.calls] == [0.1, 0.7]
    assert [(e.kind, e.detail) for e in model.events] == [
        ("decoded again", "it reads a.py again; decoded again at temperature 0.7")
    ]
    assert model.generate_calls == 2  # each decode is a model call, its tokens counted
    assert [s.get("temperature") for s in model.call_stats] == [None, 0.7]


def test_when_every_decode_is_stale_the_last_one_is_kept() -> None:
    model, inner = _model(READ_A, READ_A, READ_A, READ_B)
    reply = model.generate(USER, tools_to_call_from=_tools())
    assert _path(reply) == "a.py"  # the loop guard judges it when it runs
    assert [c.kwargs.get("temperature") for c in inner.calls] == [None, *RETRY_TEMPERATURES]
    assert len(inner.calls) == 1 + len(RETRY_TEMPERATURES)


def test_an_unusable_decode_does_not_replace_a_stale_call() -> None:
    model, inner = _model(READ_A, {"text": "I am not sure."})
    reply = model.generate(USER, tools_to_call_from=_tools())
    assert _path(reply) == "a.py"
    assert len(inner.calls) == 2


def test_fresh_replies_and_replies_without_a_check_are_decoded_once() -> None:
    model, inner = _model(READ_B, READ_A)
    assert _path(model.generate(USER, tools_to_call_from=_tools())) == "b.py"
    model.stale_reply = None
    assert _path(model.generate(USER, tools_to_call_from=_tools())) == "a.py"
    assert len(inner.calls) == 2 and model.events == []


def test_a_replay_is_asked_once() -> None:
    inner = ScriptedModel([READ_A, READ_B])  # a script's next turn is not a new decode
    model = RobustModel(inner)
    model.stale_reply = _reads_a
    assert _path(model.generate(USER, tools_to_call_from=_tools())) == "a.py"
    assert len(inner.calls) == 1


def test_decoding_again_is_given_up_while_it_is_fruitless_and_taken_up_after_a_fresh_reply() -> (
    None
):
    from lsp_agent.models.robust.fresh import FRUITLESS_STEPS, DecodesAgain

    # satellite: the same reply at 0.0, 0.7 and 1.0 for eleven steps, 22 decodes again
    stale_steps = [READ_A] * (1 + len(RETRY_TEMPERATURES)) * FRUITLESS_STEPS
    model, inner = _model(*stale_steps, READ_A, READ_B, READ_A, READ_B)
    decodes = DecodesAgain(_reads_a)
    for _ in range(FRUITLESS_STEPS):  # each step: stale at every temperature
        model.stale_reply = decodes.for_step()
        assert _path(model.generate(USER, tools_to_call_from=_tools())) == "a.py"
    assert len(inner.calls) == len(stale_steps)
    model.stale_reply = decodes.for_step()  # given up: the stale reply runs as it is
    assert decodes.given_up
    assert _path(model.generate(USER, tools_to_call_from=_tools())) == "a.py"
    assert len(inner.calls) == len(stale_steps) + 1
    model.stale_reply = decodes.for_step()  # a fresh reply ...
    assert _path(model.generate(USER, tools_to_call_from=_tools())) == "b.py"
    model.stale_reply = decodes.for_step()  # ... and a stale one is decoded again
    assert not decodes.given_up
    assert _path(model.generate(USER, tools_to_call_from=_tools())) == "b.py"
    assert [c.kwargs.get("temperature") for c in inner.calls[-2:]] == [None, 0.7]


def _calling(name: str) -> ChatMessage:
    call = ChatMessageToolCall(
        id="1",
        type="function",
        function=ChatMessageToolCallFunction(name=name, arguments={"path": "a.py"}),
    )
    return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[call])


def test_a_third_stale_read_leaves_every_reader_out_of_a_decode_again_a_proposal_none() -> None:
    readers = [SpyTool(name, {"path": "string"}) for name in ("read_file", "read_file_snippet")]
    for reader in readers:
        reader.read_only = True
    offered = [*readers, SpyTool("propose_patch", {"path": "string"}), FinalAnswerTool()]
    read = ("read_file", {"path": "a.py"})
    twice = [read, ("read_file_snippet", {"path": "a.py"}), read]
    assert stale_tools(_calling("read_file"), offered, twice) == {"read_file", "read_file_snippet"}
    assert stale_tools(_calling("read_file"), offered, [read]) == frozenset()  # first repeat
    propose = ("propose_patch", {"path": "a.py"})
    assert stale_tools(_calling("propose_patch"), offered, [propose] * 3) == frozenset()
    plain = ScriptedModel([READ_A])
    with leaving_out(plain, frozenset({"read_file"})) as narrowed:  # no constraint to narrow
        assert not narrowed and not hasattr(plain, "left_out_tools")
