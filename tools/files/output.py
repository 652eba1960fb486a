"""Fitting a tool's text into its output limits: counts in words, lines cut to a width, as many
lines or list items as the budget allows, and the note that says what was cut.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from safety.truncation import list_truncation_note, truncate_list
from tools.base import ToolLimits

NOTE_RESERVE_CHARS = 300
"""Characters kept free in every output for the truncation note."""
NOTE_RESERVE_LINES = 1
MIN_BODY_CHARS = 200
MAX_SHOWN_LINE_CHARS = 300
"""Snippet and search lines longer than this are cut (like ripgrep's --max-columns)."""


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 file`` / ``2 files`` (``many`` for irregular plurals)."""
    return f"{count} {word}" if count == 1 else f"{count} {many or word + 's'}"


def text_lines(text: str) -> list[str]:
    """Lines split on ``\\n`` only (as editors, git and ripgrep count), without ``\\r``."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def clip_line(line: str, max_chars: int = MAX_SHOWN_LINE_CHARS) -> str:
    if len(line) <= max_chars:
        return line
    return f"{line[:max_chars]} [... {len(line) - max_chars} more characters]"


def body_budget(limits: ToolLimits, header: str = "") -> tuple[int, int]:
    """(chars, lines) left for the body once ``header`` and a note are accounted for."""
    header_lines = header.count("\n") + 1 if header else 0
    chars = max(MIN_BODY_CHARS, limits.max_output_chars - len(header) - NOTE_RESERVE_CHARS)
    lines = max(1, limits.max_output_lines - header_lines - NOTE_RESERVE_LINES)
    return chars, lines


def fit_lines(lines: Sequence[str], max_chars: int, max_lines: int) -> int:
    """How many leading ``lines`` (joined with newlines) fit in the budget."""
    used = 0
    for count, line in enumerate(lines[:max_lines]):
        used += len(line) + 1
        if used > max_chars:
            return count
    return min(len(lines), max_lines)


def format_list(
    header: str,
    items: Sequence[str],
    limits: ToolLimits,
    *,
    what: str,
    note: Callable[[int, int], str] | None = None,
    footer: str = "",
) -> str:
    """``header``, then as many ``items`` as the limits allow, then a note if any were cut."""
    kept, _cut = truncate_list(items, limits.max_list_items)
    chars, lines = body_budget(limits, header + ("\n" + footer if footer else ""))
    shown = max(1, fit_lines(kept, chars, lines)) if kept else 0
    parts = [header, *(clip_line(item, chars) for item in kept[:shown])]
    if shown < len(items):
        make_note = note or (lambda total, n: list_truncation_note(total, n, what=what))
        parts.append(make_note(len(items), shown))
    if footer:
        parts.append(footer)
    return "\n".join(parts)
