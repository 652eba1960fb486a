"""Completions already computed, found again by the text around the cursor.

An entry is keyed by the document's text just before and just after the cursor (bounded), so
the same place answers at once however the request came. `get` also finds an entry made a few
keystrokes earlier: when the text typed since then is the start of that entry's completion
(the user is typing what was shown), the rest of it is the answer, without asking the model.
An empty completion is remembered too (the model had nothing to add here).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

BEFORE_CHARS = 2000
AFTER_CHARS = 600
MAX_BUCKETS = 128
MAX_PER_BUCKET = 8


@dataclass(frozen=True)
class CursorText:
    """The document's text around the cursor, as the cache compares it."""

    uri: str
    before: str
    after: str


def cursor_text(uri: str, lines: Sequence[str], line: int, character: int) -> CursorText:
    """The last `BEFORE_CHARS` characters before the cursor and the first `AFTER_CHARS` after."""
    current = lines[line] if line < len(lines) else ""
    parts = [current[:character]]
    size = len(parts[0])
    row = line - 1
    while row >= 0 and size < BEFORE_CHARS:
        parts.append(lines[row] + "\n")
        size += len(parts[-1])
        row -= 1
    before = "".join(reversed(parts))[-BEFORE_CHARS:]
    after_parts = [current[character:]]
    size = len(after_parts[0])
    row = line + 1
    while row < len(lines) and size < AFTER_CHARS:
        after_parts.append("\n" + lines[row])
        size += len(after_parts[-1])
        row += 1
    return CursorText(uri, before, "".join(after_parts)[:AFTER_CHARS])


@dataclass(frozen=True)
class _Entry:
    before: str
    text: str


class CompletionCache:
    """A small LRU of completions (see the module doc)."""

    def __init__(self) -> None:
        self._buckets: OrderedDict[tuple[str, str], list[_Entry]] = OrderedDict()

    def put(self, where: CursorText, text: str) -> None:
        key = (where.uri, where.after)
        bucket = [e for e in self._buckets.pop(key, []) if e.before != where.before]
        self._buckets[key] = [_Entry(where.before, text), *bucket][:MAX_PER_BUCKET]
        while len(self._buckets) > MAX_BUCKETS:
            self._buckets.popitem(last=False)

    def get(self, where: CursorText) -> str | None:
        """The completion for this place, "" when the model had none, None when unknown."""
        key = (where.uri, where.after)
        bucket = self._buckets.get(key)
        if bucket is None:
            return None
        self._buckets.move_to_end(key)
        for entry in bucket:
            if entry.before == where.before:
                return entry.text
        for entry in bucket:
            rest = _rest_after_typing(entry, where.before)
            if rest:
                return rest
        return None

    def clear(self) -> None:
        self._buckets.clear()


def _rest_after_typing(entry: _Entry, before: str) -> str | None:
    """What remains of `entry.text` when `before` is `entry.before` plus a start of it."""
    text = entry.text
    for typed in range(1, len(text)):
        if not before.endswith(text[:typed]):
            continue
        then = entry.before + text[:typed]
        if then[-BEFORE_CHARS:] == before:
            return text[typed:]
    return None
