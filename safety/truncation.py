"""Output truncation with a note saying what was cut and how to see more."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from safety.errors import read_file_call

T = TypeVar("T")


def truncate_output(
    text: str,
    max_chars: int = 3000,
    max_lines: int = 150,
    *,
    path: str | None = None,
    first_line: int = 1,
) -> tuple[str, bool]:
    """Cut ``text`` to ``max_lines`` lines and ``max_chars`` characters.

    Returns ``(text, truncated)``. A cut text ends with a note (not counted in the
    limits) giving how much was removed and how to see more: the exact ``read_file``
    call when ``path`` is known (``first_line`` is the line number of ``text``'s first
    line in that file).
    """
    if max_chars < 1 or max_lines < 1:
        raise ValueError("max_chars and max_lines must be positive")
    lines = text.splitlines(keepends=True)
    if len(text) <= max_chars and len(lines) <= max_lines:
        return text, False
    kept: list[str] = []
    used = 0
    partial = False
    for line in lines[:max_lines]:
        if used + len(line) > max_chars:
            if not kept:
                kept.append(line[:max_chars])
                partial = True
            break
        kept.append(line)
        used += len(line)
    body = "".join(kept)
    full_lines = len(kept) - (1 if partial else 0)
    removed_lines = len(lines) - full_lines
    removed_chars = len(text) - len(body)
    note = _note(
        removed_lines=removed_lines,
        removed_chars=removed_chars,
        path=path,
        next_line=first_line + full_lines,
        max_lines=max_lines,
        partial=partial,
    )
    if body and not body.endswith("\n"):
        body += "\n"
    return body + note, True


def _note(
    *,
    removed_lines: int,
    removed_chars: int,
    path: str | None,
    next_line: int,
    max_lines: int,
    partial: bool,
) -> str:
    what = f"[truncated: {removed_lines} more lines ({removed_chars} characters) not shown."
    if partial:
        what = (
            f"[truncated: line {next_line} is very long; {removed_chars} characters "
            f"(from {removed_lines} lines) not shown."
        )
    if path is not None:
        if partial:
            return (
                f"{what} Search inside it with "
                f'read_file_snippet(path="{path}", pattern="<text>") instead.]'
            )
        end = next_line + max_lines - 1
        return f"{what} To see more: {read_file_call(path, next_line, end)}]"
    return (
        f"{what} Narrow the output (a more specific pattern or path, a smaller line "
        "range, or pipe through head).]"
    )


def truncate_list(items: Sequence[T], max_items: int = 100) -> tuple[list[T], bool]:
    """Keep the first ``max_items`` items; the bool says whether any were dropped."""
    if max_items < 0:
        raise ValueError("max_items must not be negative")
    kept = list(items[:max_items])
    return kept, len(items) > max_items


def list_truncation_note(total: int, shown: int, *, what: str = "items") -> str:
    """The note to show after a truncated list."""
    return (
        f"[truncated: showing {shown} of {total} {what}; {total - shown} not shown. "
        "Use a more specific pattern to narrow the list.]"
    )


def shorten_line(text: str, limit: int) -> str:
    """`text` on one line of at most `limit` characters, cut between words (never inside
    one, unless a single word fills most of the line), ending with "…" when cut."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    room = max(limit - 1, 0)
    cut = line.rfind(" ", 0, room + 1)
    kept = line[:cut] if cut >= room * 2 // 3 else line[:room]
    return kept.rstrip(" ;,:(—-") + "…"
