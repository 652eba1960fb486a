"""What a request cost, from its reply; a reply that ran to max_tokens says what it wrote."""

from __future__ import annotations

from smolagents.models import ChatMessage, MessageRole
from smolagents.monitoring import TokenUsage

from lsp_agent.models.robust.call_stats import TEXT_END_CHARS, reply_stats


def embedded_reply(text: str, finish_reason: str) -> ChatMessage:
    raw = {"prompt_evaluated": 40, "generated": 9, "finish_reason": finish_reason}
    return ChatMessage(
        role=MessageRole.ASSISTANT, content=text, raw=raw, token_usage=TokenUsage(100, 9)
    )


def test_a_reply_that_ran_to_max_tokens_says_whether_it_held_a_call_and_how_it_ended() -> None:
    prose = "The answer is 42, because " + "six sevens make forty-two; " * 20
    stats = reply_stats(embedded_reply(prose, "length"), 1.5)
    assert stats["held_call"] is False and stats["text_end"] == prose[-TEXT_END_CHARS:]
    call = '```json\n{"name": "read_file", "arguments": {"path": "a.py"}}\n```\n' + "\n" * 40
    assert reply_stats(embedded_reply(call, "length"), 1.5)["held_call"] is True
    done = reply_stats(embedded_reply("42", "stop"), 0.2)
    assert "held_call" not in done and "text_end" not in done
    assert done["prompt_evaluated"] == 40 and done["prompt_tokens"] == 100
