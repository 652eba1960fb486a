"""Bash brace expansion (``{a,b}``, ``{1..3}``) of one word, backed by ``bracex``.

Used where a pattern or path may hold braces (globs of the file tools, path
classification of the command policy, whose shell parser expands whole command lines
with it). Bounded: past ``limit`` results it gives up (None) and the caller asks.
"""

from __future__ import annotations

import bracex

MAX_EXPANSIONS = 64


def expand_braces(text: str, *, limit: int = MAX_EXPANSIONS) -> list[str] | None:
    """Expand braces in ``text``; None when the result would exceed ``limit`` words."""
    if "{" not in text or ("," not in text and ".." not in text):
        return [text]  # nothing to expand (``{}`` of find, ``${x}``)
    try:
        out = bracex.expand(text, limit=limit)
    except bracex.ExpansionLimitException:
        return None
    return out if 0 < len(out) <= limit else None
