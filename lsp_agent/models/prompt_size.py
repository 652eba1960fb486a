"""The characters-per-token ratio every cheap token estimate uses (no imports of ours, so
anything can size text without loading a model), and the ratio a job measures.

`CHARS_PER_TOKEN` is conservative for dense code with a small vocabulary. A real model
reports how many tokens each request had; `measured_chars_per_token` turns that into the
ratio the job's context budget then uses (never below `CHARS_PER_TOKEN`, never above
`MAX_CHARS_PER_TOKEN`, and 10% short of what was seen). Qwen2.5-Coder-1.5B read 10,500
characters of an Exercism task as 2,134 tokens (4.9 a token): counted at 2.2, the budget
masked the first step's result before the model had read it (bottle-song).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# Conservative for dense code (measured 2.3 chars/token with a small BPE vocabulary; larger
# tokenizers pack more). `lsp-agent bench context` counts real tokens.
CHARS_PER_TOKEN = 2.2
MAX_CHARS_PER_TOKEN = 4.0
MEASURED_SHARE = 0.9  # of the measured ratio: a later request may pack less densely


def message_chars(messages: Iterable[Any]) -> int:
    """The characters of a request's messages (`ChatMessage`s or dicts): their text parts,
    and their tool calls' names and arguments."""
    chars = 0
    for message in messages:
        if isinstance(message, dict):
            content, calls = message.get("content"), message.get("tool_calls")
        else:
            content, calls = message.content, message.tool_calls
        if isinstance(content, str):
            chars += len(content)
        elif isinstance(content, list):
            chars += sum(len(str(part.get("text", ""))) for part in content)
        for call in calls or []:
            function = call.get("function", {}) if isinstance(call, dict) else call.function
            name = function.get("name") if isinstance(function, dict) else function.name
            arguments = (
                function.get("arguments") if isinstance(function, dict) else function.arguments
            )
            chars += len(str(name)) + len(str(arguments))
    return chars


def measured_chars_per_token(chars: int, tokens: int) -> float | None:
    """The ratio to budget with after a request of `chars` characters that the model
    counted as `tokens` prompt tokens (None when it reported none)."""
    if tokens <= 0 or chars <= 0:
        return None
    ratio = chars / tokens * MEASURED_SHARE
    return max(CHARS_PER_TOKEN, min(ratio, MAX_CHARS_PER_TOKEN))
