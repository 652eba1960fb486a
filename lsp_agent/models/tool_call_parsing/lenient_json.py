"""Read JSON-ish text leniently: single quotes, trailing commas, unquoted keys, Python literals.

Never evaluates anything: the repaired text goes through `json.loads`, then `ast.literal_eval`.
"""

from __future__ import annotations

import ast
import json
import warnings
from typing import Any

_WORDS = {"true": "True", "false": "False", "null": "None", "none": "None"}
_CLOSERS = {"{": "}", "[": "]", "(": ")"}


def loads_lenient(text: str) -> tuple[Any, list[str]] | None:
    """JSON-ish text -> (value, repair notes), or None when it cannot be read."""
    try:
        return json.loads(text), []
    except (ValueError, RecursionError):
        pass
    try:
        return json.loads(text, strict=False), ["raw control characters inside strings"]
    except (ValueError, RecursionError):
        pass
    pythonish, flags = _pythonise(text)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = ast.literal_eval(pythonish)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return _jsonable(value), flags or ["non-JSON syntax"]


def next_opener(text: str, position: int, openers: str) -> int:
    found = [i for i in (text.find(c, position) for c in openers) if i >= 0]
    return min(found) if found else -1


def scan_balanced(text: str, start: int, openers: str) -> tuple[int, list[str], str | None]:
    """From the opener at `start`: (index after its match, closers still open, open quote)."""
    stack: list[str] = []
    quote: str | None = None
    i, n = start, len(text)
    while i < n:
        char = text[i]
        if quote is not None:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char in openers:
            stack.append(_CLOSERS[char])
        elif char in "}])":
            if not stack or char != stack[-1]:
                return i + 1, [], None
            stack.pop()
            if not stack:
                return i + 1, [], None
        i += 1
    return n, stack, quote


def _pythonise(text: str) -> tuple[str, list[str]]:
    """JSON-ish -> Python literal syntax: words, unquoted keys, escapes; notes what changed."""
    out: list[str] = []
    flags: list[str] = []
    quote: str | None = None
    last = last_before = ""  # the last non-space characters seen outside strings
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if not char.isspace() and quote is None:
            last_before, last = last, char
        if quote is not None:
            if char == "\\" and i + 1 < n:
                nxt = text[i + 1]
                out.append("/" if nxt == "/" else char + nxt)
                i += 2
                continue
            if char == quote:
                quote = None
            elif char in "\n\r\t":
                out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[char])
                flags.append("raw control characters inside strings")
                i += 1
                continue
            out.append(char)
        elif char in "\"'":
            quote = char
            if char == "'":
                flags.append("single quotes")
            out.append(char)
        elif char.isalpha() or char == "_":
            i, word, flag = _word(text, i, last_before)
            out.append(word)
            if flag:
                flags.append(flag)
            continue
        else:
            if char in "}]" and last_before == ",":
                flags.append("trailing commas")
            out.append(char)
        i += 1
    return "".join(out), list(dict.fromkeys(flags))


def _word(text: str, start: int, last_before: str) -> tuple[int, str, str | None]:
    """The bare word at `start`: (index after it, its Python spelling, repair note or None)."""
    end = start
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    word = text[start:end]
    after = end
    while after < len(text) and text[after].isspace():
        after += 1
    if text[after : after + 1] == ":" and last_before in ("{", ","):
        return end, json.dumps(word), "unquoted keys"
    if word in _WORDS:
        return end, _WORDS[word], None
    return end, word, "Python literals" if word in ("True", "False", "None") else None


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes | complex):
        return str(value)
    return value
