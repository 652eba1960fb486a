"""Apply a parsed diff to text in memory, as strictly as `git apply` (no fuzz).

Used where nothing may run (`SANDBOX_BACKEND=none`, or Docker unavailable) so the
patch result can still say whether the diff applies to the current text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sandbox.diff_check import ParsedDiff

Reader = Callable[[str], str | None]  # repo-relative path -> text, None if missing


class DoesNotApply(ValueError):
    """A hunk does not match the current text; the message says where."""


def apply_to_texts(parsed: ParsedDiff, read: Reader) -> dict[str, str | None]:
    """New text per touched path (None = deleted), or raise `DoesNotApply`."""
    result: dict[str, str | None] = {}

    def current(path: str) -> str | None:
        return result[path] if path in result else read(path)

    for change, patched in zip(parsed.files, parsed.patch, strict=True):
        if change.kind == "add":
            assert change.target is not None
            if current(change.target) is not None:
                raise DoesNotApply(f"{change.target} already exists")
            result[change.target] = _apply_hunks("", list(patched), change.target)
            continue
        assert change.source is not None
        text = current(change.source)
        if text is None:
            raise DoesNotApply(f"{change.source} does not exist")
        new_text = _apply_hunks(text, list(patched), change.source)
        if change.kind == "delete":
            if new_text:
                raise DoesNotApply(f"{change.source}: deleting it leaves text behind")
            result[change.source] = None
        elif change.kind == "rename":
            assert change.target is not None
            if current(change.target) is not None:
                raise DoesNotApply(f"cannot rename to {change.target}: it already exists")
            result[change.source] = None
            result[change.target] = new_text
        else:
            result[change.source] = new_text
    return result


def _hunk_sides(hunk: Any) -> tuple[list[str], list[str]]:
    """(old lines, new lines) with line endings, honouring `\\ No newline at end of file`."""
    old: list[str] = []
    new: list[str] = []
    last: str | None = None
    for line in hunk:
        kind = line.line_type
        if kind == "\\":
            if last in (" ", "-") and old:
                old[-1] = old[-1].rstrip("\r\n")
            if last in (" ", "+") and new:
                new[-1] = new[-1].rstrip("\r\n")
            continue
        if kind in (" ", "-"):
            old.append(line.value)
        if kind in (" ", "+"):
            new.append(line.value)
        if kind in (" ", "-", "+"):
            last = kind
    return old, new


def _apply_hunks(text: str, hunks: list[Any], path: str) -> str:
    lines = text.splitlines(keepends=True)
    offset = 0
    for number, hunk in enumerate(hunks, start=1):
        old, new = _hunk_sides(hunk)
        wanted = max(hunk.source_start - 1, 0) + offset
        # git apply's anchoring: a hunk starting at line 0/1 must match at the start,
        # one without trailing context must match at the end.
        at_start = hunk.source_start <= 1
        at_end = _trailing_context(hunk) == 0
        position: int | None
        if at_start and at_end:
            position = 0 if lines == old else None
        elif at_start:
            position = 0 if lines[: len(old)] == old else None
        elif at_end:
            end = len(lines) - len(old)
            position = end if end >= 0 and lines[end:] == old else None
        else:
            position = _find(lines, old, wanted)
        if position is None:
            where = "at the end of the file" if at_end else f"near line {hunk.source_start}"
            raise DoesNotApply(
                f"hunk #{number} of {path} does not match the current text (expected "
                f"{where}); re-read the file and make the diff against its current content"
            )
        lines[position : position + len(old)] = new
        drift = position - wanted if old else 0
        offset += drift + len(new) - len(old)
    return "".join(lines)


def _trailing_context(hunk: Any) -> int:
    count = 0
    for line in reversed(list(hunk)):
        if line.line_type == "\\":
            continue
        if line.line_type != " ":
            break
        count += 1
    return count


def _find(lines: list[str], old: list[str], wanted: int) -> int | None:
    """The match of `old` in `lines` nearest to `wanted`."""
    size = len(old)
    last_start = len(lines) - size
    if last_start < 0:
        return None
    for distance in range(0, len(lines) + 1):
        for start in (wanted - distance, wanted + distance):
            if 0 <= start <= last_start and lines[start : start + size] == old:
                return start
        if wanted - distance < 0 and wanted + distance > last_start:
            break
    return None
