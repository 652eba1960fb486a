"""Place a file's hunks in its current text, tolerating what small models get wrong.

Per hunk, in order: an exact match (closest to the header's line wins, so a match at the
stated line needs no adjustment), then a match ignoring line endings (an LF diff against
a CRLF file, a missing final newline), then one ignoring whitespace (inner runs collapsed,
ends stripped). Matched context lines are kept exactly as they are in the file; only the
removed lines are replaced by the added ones. Anything not exact is described in a note.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from safety.errors import ErrorType, read_file_call
from safety.unified_diff.model import DiffHunk, FileDiff, PatchError, lines_with_ends

Tier = Literal["exact", "eol", "ws"]
TIERS: tuple[Tier, ...] = ("exact", "eol", "ws")
EXCERPT_MARGIN = 3


def strip_eol(line: str) -> str:
    return line.rstrip("\r\n")


def squash_ws(line: str) -> str:
    """A line with whitespace ignored: ends stripped, inner runs collapsed to one space."""
    return " ".join(line.split())


_KEYS: dict[Tier, Callable[[str], str]] = {
    "exact": lambda line: line,
    "eol": strip_eol,
    "ws": squash_ws,
}


def line_ending(line: str) -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    return "\n" if line.endswith("\n") else ""


def dominant_eol(lines: Sequence[str]) -> str:
    """``"\\r\\n"`` when most line breaks in the text are CRLF, else ``"\\n"``."""
    crlf = sum(1 for line in lines if line.endswith("\r\n"))
    lf = sum(1 for line in lines if line.endswith("\n")) - crlf
    return "\r\n" if crlf > lf else "\n"


def leading_ws(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


@dataclass(frozen=True)
class Placement:
    """Where a hunk's old lines sit in the text, and how they matched."""

    pos: int
    tier: Tier


def find_block(lines: Sequence[str], block: Sequence[str], tier: Tier, lo: int = 0) -> list[int]:
    """Every index ``p >= lo`` where ``block`` matches ``lines[p:]`` under ``tier``."""
    if not block:
        return []
    key = _KEYS[tier]
    want = [key(line) for line in block]
    have = [key(line) for line in lines]
    first = want[0]
    return [
        p
        for p in range(lo, len(lines) - len(block) + 1)
        if have[p] == first and have[p : p + len(block)] == want
    ]


def closest(positions: Sequence[int], expected: int) -> int:
    return min(positions, key=lambda p: (abs(p - expected), p))


def place_block(
    lines: Sequence[str], block: Sequence[str], lo: int, expected: int
) -> Placement | None:
    """The best placement of ``block`` at or after ``lo``: strictest tier, then closest."""
    for tier in TIERS:
        found = find_block(lines, block, tier, lo)
        if found:
            return Placement(closest(found, expected), tier)
    return None


@dataclass(frozen=True)
class Reindent:
    """Turns the model's indentation into the file's: a constant prefix change, or a
    constant ratio of leading spaces (2-space vs 4-space indentation)."""

    remove: str = ""
    add: str = ""
    scale: Fraction | None = None

    def apply(self, line: str) -> str:
        if not line.strip():
            return line
        if self.scale is not None:
            lead = leading_ws(line)
            if lead != " " * len(lead):
                return line
            width = len(lead) * self.scale
            return line if width.denominator != 1 else " " * int(width) + line[len(lead) :]
        if self.remove and line.startswith(self.remove):
            line = line[len(self.remove) :]
        return self.add + line

    def describe(self) -> str:
        if self.scale is not None:
            return f"re-indented its added lines (indent width x{self.scale})"
        what = self.add or self.remove
        unit = "tab" if what == "\t" * len(what) else "space"
        count = f"{len(what)} {unit}{'s' if len(what) != 1 else ''}"
        return f"re-indented its added lines ({'+' if self.add else '-'}{count})"


def reindent_rule(pairs: Sequence[tuple[str, str]]) -> Reindent | None:
    """How to turn the model's indentation into the file's, if consistent.

    ``pairs`` are (file line, model line) for lines matched ignoring whitespace.
    """
    leads = [(leading_ws(f), leading_ws(m)) for f, m in pairs if f.strip() and m.strip()]
    if not leads or all(f == m for f, m in leads):
        return None
    if all(f.endswith(m) for f, m in leads):
        extra = {f[: len(f) - len(m)] for f, m in leads}
        if len(extra) == 1:
            return Reindent(add=extra.pop())
    if all(m.endswith(f) for f, m in leads):
        extra = {m[: len(m) - len(f)] for f, m in leads}
        if len(extra) == 1:
            return Reindent(remove=extra.pop())
    if all(f == " " * len(f) and m == " " * len(m) for f, m in leads):
        ratios = {Fraction(len(f), len(m)) for f, m in leads if m}
        ratio = ratios.pop() if len(ratios) == 1 else Fraction(0)
        if ratio and all(len(m) * ratio == len(f) for f, m in leads):
            return Reindent(scale=ratio)
    return None


def reindent(line: str, rule: Reindent | None) -> str:
    return line if rule is None else rule.apply(line)


def apply_hunks(text: str, file_diff: FileDiff, path: str) -> tuple[str, list[str]]:
    """Apply ``file_diff``'s hunks to ``text``; returns the new text and adjustment notes."""
    lines = lines_with_ends(text)
    eol = dominant_eol(lines)
    out: list[str] = []
    notes: list[str] = []
    cursor = 0
    drift = 0
    for number, hunk in enumerate(file_diff.hunks, 1):
        where = f"hunk {number} of {path}"
        old = hunk.old_lines
        stated = max(hunk.old_start - 1, 0) if old else hunk.old_start
        expected = stated + drift if hunk.located else cursor
        if old:
            placement = place_block(lines, old, cursor, expected)
            if placement is None:
                raise hunk_error(lines, hunk, number, path, lo=cursor, expected=expected)
        else:
            pos = min(max(expected, cursor), len(lines))
            if hunk.located and pos != expected:
                notes.append(f"{where} inserts past the end of the file; added at line {pos + 1}")
            placement = Placement(pos, "exact")
        pos = placement.pos
        if hunk.located:
            drift = pos - stated
        notes.extend(_placement_notes(where, placement, pos - stated if hunk.located else 0, eol))
        replacement, rule = _replacement(hunk, lines[pos : pos + len(old)], placement.tier, eol)
        if rule is not None:
            notes.append(f"{where} {rule.describe()}")
        out.extend(lines[cursor:pos])
        out.extend(replacement)
        cursor = pos + len(old)
    out.extend(lines[cursor:])
    return _finish(text, out, file_diff, eol=eol, path=path, notes=notes)


def _placement_notes(where: str, placement: Placement, offset: int, eol: str) -> list[str]:
    parts: list[str] = []
    if placement.tier == "ws":
        parts.append("matched ignoring whitespace")
    elif placement.tier == "eol":
        kind = "CRLF" if eol == "\r\n" else "LF"
        parts.append(f"matched ignoring line endings (the file uses {kind})")
    if offset:
        side = "below" if offset > 0 else "above"
        lines = "line" if abs(offset) == 1 else "lines"
        parts.append(f"applied {abs(offset)} {lines} {side} its header (offset {offset:+d})")
    return [f"{where} {', '.join(parts)}"] if parts else []


def _replacement(
    hunk: DiffHunk, matched: Sequence[str], tier: Tier, eol: str
) -> tuple[list[str], Reindent | None]:
    rule = None
    if tier == "ws":
        rule = reindent_rule(list(zip(matched, hunk.old_lines, strict=True)))
    out: list[str] = []
    at = 0
    for line in hunk.lines:
        if line.kind == " ":
            out.append(matched[at])
            at += 1
        elif line.kind == "-":
            at += 1
        elif tier == "exact":
            out.append(line.text)
        else:
            # The hunk did not match exactly, so its line endings are not the file's.
            ending = eol if line.text.endswith("\n") else ""
            out.append(reindent(strip_eol(line.text), rule) + ending)
    return out, rule


def _finish(
    before: str, out: list[str], file_diff: FileDiff, *, eol: str, path: str, notes: list[str]
) -> tuple[str, list[str]]:
    for i in range(len(out) - 1):
        if not out[i].endswith("\n"):
            out[i] += eol
            notes.append(f"{path}: added the missing line break after line {i + 1}")
    after = "".join(out)
    markers = any(h.has_no_newline_marker for h in file_diff.hunks)
    if before and not before.endswith("\n") and not markers and after.endswith("\n"):
        after = after[: -len(line_ending(after))]
        notes.append(f"{path}: kept the file without a newline at its end")
    return after, notes


def _best_window(lines: Sequence[str], old: Sequence[str], expected: int) -> int:
    """The window most like ``old`` (most lines equal ignoring whitespace), closest wins."""
    want = [squash_ws(line) for line in old]
    have = [squash_ws(line) for line in lines]
    last = max(len(lines) - len(old), 0)
    best, best_score = min(max(expected, 0), last), -1
    for p in range(0, last + 1):
        score = sum(1 for i, w in enumerate(want) if p + i < len(have) and have[p + i] == w)
        better = score > best_score or (
            score == best_score and abs(p - expected) < abs(best - expected)
        )
        if score and better:
            best, best_score = p, score
    return best


def numbered(lines: Sequence[str], start: int, stop: int) -> str:
    """``lines[start:stop]`` with 1-based line numbers, one per line."""
    width = len(str(max(stop, 1)))
    return "".join(
        f"{n + 1:>{width}} | {strip_eol(lines[n])}\n" for n in range(start, min(stop, len(lines)))
    )


def hunk_error(
    lines: Sequence[str], hunk: DiffHunk, number: int, path: str, *, lo: int, expected: int
) -> PatchError:
    """The PatchError for a hunk that matches nowhere, showing the closest current text."""
    old = hunk.old_lines
    earlier = place_block(lines, old, 0, expected) if lo else None
    best = earlier.pos if earlier is not None else _best_window(lines, old, expected)
    start = max(best - EXCERPT_MARGIN, 0)
    stop = min(best + len(old) + EXCERPT_MARGIN, len(lines))
    message = (
        f"Hunk {number} of {path} does not apply: its context and '-' lines (header line "
        f"{hunk.old_start}) match nowhere in the current file, not even ignoring whitespace."
    )
    if earlier is not None:
        message = (
            f"Hunk {number} of {path} does not apply: its lines are at line {best + 1}, which "
            f"an earlier hunk already changed or passed (hunks must be in file order and must "
            f"not overlap)."
        )
    elif lines:
        message += f" The closest text is at lines {best + 1}-{min(best + len(old), len(lines))}."
    new = hunk.new_lines
    done = place_block(lines, new, 0, expected) if new and new != old else None
    if done is not None:
        message += (
            f" Its '+' lines are already in the file at line {done.pos + 1}: already applied?"
        )
    first, last = (start + 1, max(stop, start + 1)) if lines else (1, 1)
    return PatchError(
        message,
        kind=ErrorType.PATCH_DOES_NOT_APPLY,
        recovery_suggestion=(
            f"Compare the hunk's ' ' and '-' lines with the current text, e.g. "
            f"{read_file_call(path, first, last)}, and resend the hunk with those lines "
            "copied exactly from the file, or use propose_patch(path, old, new) with 'old' "
            "copied from the file."
        ),
        file=path,
        hunk=number,
        expected=old,
        current=numbered(lines, start, stop),
        current_start=first,
    )
