"""What one model request cost, read from the reply: tokens in, how many of them the model
had to evaluate (the rest came from its cache), tokens out, seconds, why it ended.

Embedded replies carry their own counts (`raw`: `prompt_evaluated`, `generated`,
`finish_reason`); a server's reply carries `usage` (llama.cpp's server and vLLM report
`prompt_tokens_details.cached_tokens`) and `choices[0].finish_reason`. What a reply does
not say is left out rather than guessed. A reply that ran to `max_tokens` also says whether
it held a complete call and how its text ended (`held_call`, `text_end`): what the model
wrote when it ran on.
"""

from __future__ import annotations

from typing import Any

from smolagents.models import ChatMessage

from lsp_agent.models.messages import message_text
from lsp_agent.models.tool_call_parsing.stream_cut import complete_call_end

__all__ = ["reply_stats"]

TEXT_END_CHARS = 160


def _get(value: Any, key: str) -> Any:
    if isinstance(value, dict):
        return value.get(key)
    return getattr(value, key, None)


def reply_stats(reply: ChatMessage, seconds: float) -> dict[str, Any]:
    """One request's figures (see the module doc)."""
    stats: dict[str, Any] = {"seconds": round(seconds, 3)}
    usage = reply.token_usage
    if usage is not None:
        stats["prompt_tokens"] = usage.input_tokens
        stats["completion_tokens"] = usage.output_tokens
    raw = reply.raw
    if isinstance(raw, dict) and "prompt_evaluated" in raw:
        for key in ("prompt_evaluated", "generated", "finish_reason", "dropped"):
            if key in raw:
                stats[key] = raw[key]
        return _ran_on(stats, reply)
    raw_usage = _get(raw, "usage")
    details = _get(raw_usage, "prompt_tokens_details")
    cached = _get(details, "cached_tokens")
    if isinstance(cached, int) and usage is not None:
        stats["prompt_evaluated"] = max(usage.input_tokens - cached, 0)
    choices = _get(raw, "choices")
    if isinstance(choices, list) and choices:
        reason = _get(choices[0], "finish_reason")
        if isinstance(reason, str):
            stats["finish_reason"] = reason
    return _ran_on(stats, reply)


def _ran_on(stats: dict[str, Any], reply: ChatMessage) -> dict[str, Any]:
    """`stats`, and for a reply that ran to `max_tokens`, whether it held a call and its end."""
    if stats.get("finish_reason") != "length":
        return stats
    text = message_text(reply.content) if reply.content else ""
    stats["held_call"] = bool(reply.tool_calls) or complete_call_end(text) is not None
    stats["text_end"] = text[-TEXT_END_CHARS:]
    return stats
