"""Bash brace expansion (``{a,b}``, ``{1..3}``) for checking words, backed by ``bracex``.

``expand_braces`` expands one word (used when classifying paths); ``expand_argv`` expands
every unquoted word of a command line the way bash does before running it, so that
``find . {-delete,}`` is judged as ``find . -delete`` and ``{rm,-rf,/}`` as ``rm -rf /``.
Both are bounded: past ``limit`` results they give up (None) and the caller asks.
"""

from __future__ import annotations

from collections.abc import Sequence

import bracex

from safety.shell_words import Word, unescape_unquoted

MAX_EXPANSIONS = 64
MAX_ARGV_WORDS = 256


def expand_braces(text: str, *, limit: int = MAX_EXPANSIONS) -> list[str] | None:
    """Expand braces in ``text``; None when the result would exceed ``limit`` words."""
    if "{" not in text or ("," not in text and ".." not in text):
        return [text]  # nothing to expand (``{}`` of find, ``${x}``)
    try:
        out = bracex.expand(text, limit=limit)
    except bracex.ExpansionLimitException:
        return None
    return out if 0 < len(out) <= limit else None


def expand_argv(words: Sequence[Word], *, limit: int = MAX_ARGV_WORDS) -> list[Word] | None:
    """The words bash runs after brace expansion of the unquoted words in ``words``:
    ``words`` itself when nothing expands, None when there would be more than ``limit``."""
    if not any("{" in w.raw and ("," in w.raw or ".." in w.raw) for w in words):
        return list(words)
    out: list[Word] = []
    for word in words:
        if not word.is_static or word.quoted or word.ansi_c or "{" not in word.raw:
            out.append(word)
            continue
        # braces expand before quote removal: an escaped word expands from its raw text
        variants = expand_braces(word.raw if word.escaped else word.value, limit=limit)
        if variants is None:
            return None
        if word.escaped:
            variants = [unescape_unquoted(v) for v in variants]
        # like bash, an empty result of an unquoted expansion is no word at all
        out.extend(Word.literal(v) for v in variants if v or len(variants) == 1)
        if len(out) > limit:
            return None
    return out
