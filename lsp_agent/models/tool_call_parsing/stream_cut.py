"""Where a reply that is still being written holds its first complete tool call.

Small models that write calls as text do not stop after one: Qwen2.5-Coder-1.5B writes a
fenced call, then the calls it imagines next, then newlines until `max_tokens`. Whoever
streams the reply (the embedded model token by token, a server's stream) asks
`complete_call_end(text)` as text arrives and stops at the index it returns: the reply is
then exactly one call. A call is a JSON object (bare, fenced or in a `<tool_call>` block)
that names a tool (`{"name": …}`, `{"function": {"name": …}}`, `{"tool": …}`) or answers
(`{"final_answer": …}`, `{"answer": …}`).
"""

from __future__ import annotations

from typing import Any

from lsp_agent.models.tool_call_parsing.lenient_json import (
    loads_lenient,
    next_opener,
    scan_balanced,
)

__all__ = ["complete_call_end", "is_call_object"]

CALL_KEYS = ("name", "tool", "tool_name", "function", "action", "function_name")
ANSWER_KEYS = ("final_answer", "answer")
MAX_OPENERS = 20


def is_call_object(value: Any) -> bool:
    """Whether a parsed JSON value is one call (or an answer) as `complete_call_end` means."""
    if not isinstance(value, dict):
        return False
    if any(isinstance(value.get(key), str) and value[key].strip() for key in CALL_KEYS):
        return True
    function = value.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str):
        return True
    return any(key in value for key in ANSWER_KEYS)


def complete_call_end(text: str) -> int | None:
    """The index just after the first complete call in `text`, or None while there is none.

    An object still open stops the search: it may be the call, half written."""
    position = 0
    for _ in range(MAX_OPENERS):
        start = next_opener(text, position, "{")
        if start < 0:
            return None
        end, stack, quote = scan_balanced(text, start, "{[")
        if stack or quote:
            return None
        loaded = loads_lenient(text[start:end])
        if loaded is not None and is_call_object(loaded[0]):
            return end
        position = start + 1
    return None
