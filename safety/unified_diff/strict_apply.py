"""Apply a strictly parsed diff to text in memory, as strictly as `git apply` (no fuzz).

Used where nothing may run (`SANDBOX_BACKEND=none`, or Docker unavailable) so the
patch result can still say whether the diff applies to the current text. A hunk may
move (the nearest exact match wins, like git's offset) but its lines must match exactly;
a hunk at line 0/1 must match at the start, one without trailing context at the end.
The tolerant tier the tools use is `tolerant_apply`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from safety.errors import ErrorType
from safety.unified_diff.model import DiffHunk, ParsedDiff, PatchError, lines_with_ends

Reader = Callable[[str], str | None]  # repo-relative path -> text, None if missing


def does_not_apply(message: str, path: str | None = None) -> PatchError:
    return PatchError(message, kind=ErrorType.PATCH_DOES_NOT_APPLY, file=path)


def apply_to_texts(parsed: ParsedDiff, read: Reader) -> dict[str, str | None]:
    """New text per touched path (None = deleted), or raise PatchError (does not apply)."""
    result: dict[str, str | None] = {}

    def current(path: str) -> str | None:
        return result[path] if path in result else read(path)

    for change in parsed.files:
        source, target = change.old_path, change.new_path
        if source is None:
            assert target is not None
            if current(target) is not None:
                raise does_not_apply(f"{target} already exists", target)
            result[target] = apply_hunks_strictly("", change.hunks, target)
            continue
        text = current(source)
        if text is None:
            raise does_not_apply(f"{source} does not exist", source)
        new_text = apply_hunks_strictly(text, change.hunks, source)
        if target is None:
            if new_text:
                raise does_not_apply(f"{source}: deleting it leaves text behind", source)
            result[source] = None
        elif target != source:
            if current(target) is not None:
                raise does_not_apply(f"cannot rename to {target}: it already exists", target)
            result[source] = None
            result[target] = new_text
        else:
            result[source] = new_text
    return result


def apply_hunks_strictly(text: str, hunks: Sequence[DiffHunk], path: str) -> str:
    """``text`` with ``hunks`` applied exactly, or raise PatchError saying which hunk."""
    lines = lines_with_ends(text)
    offset = 0
    for number, hunk in enumerate(hunks, start=1):
        old, new = hunk.old_lines, hunk.new_lines
        wanted = max(hunk.old_start - 1, 0) + offset
        # git apply's anchoring: a hunk starting at line 0/1 must match at the start,
        # one without trailing context must match at the end.
        at_start = hunk.old_start <= 1
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
            where = "at the end of the file" if at_end else f"near line {hunk.old_start}"
            raise does_not_apply(
                f"hunk #{number} of {path} does not match the current text (expected "
                f"{where}); re-read the file and make the diff against its current content",
                path,
            )
        lines[position : position + len(old)] = new
        drift = position - wanted if old else 0
        offset += drift + len(new) - len(old)
    return "".join(lines)


def _trailing_context(hunk: DiffHunk) -> int:
    count = 0
    for line in reversed(hunk.lines):
        if line.kind != " ":
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
