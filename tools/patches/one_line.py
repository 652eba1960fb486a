"""Code written on one line, its line breaks left out and their indentation kept.

Told "total_stock() returns the wrong total. Fix it." and shown the test that expects 7,
Qwen2.5-Coder-1.5B proposed the right function in every run, but as
``new="def total_stock(items):    total = 0    for item in items:        total += item.count
return total"``: inside a JSON string it writes a line break as the next line's
indentation alone (its likeliest next token after the def line was three spaces, -0.77 nats;
the ``\\n`` escape -1.97). Refused as unparsable, it wrote the same line again, or gave up.

So when ``propose_patch``'s edit leaves a Python file unparsable and ``new`` is one line, a
run of two or more spaces between two tokens (never inside a string) is read as a line break
followed by that indentation, counted from the column the edit starts at, or from the left
margin; the first reading after which the file parses is proposed, with a note saying so.
"""

from __future__ import annotations

import io
import itertools
import tokenize
from collections.abc import Iterator
from dataclasses import replace

from safety.unified_diff import PatchError
from tools.patches.model import PatchResult
from tools.patches.search_replace import apply_search_replace
from tools.patches.whole_function import parses, whole_definition
from tools.workspace import Workspace

MIN_BREAK = 2  # spaces between two tokens that stand for a line break


def one_line_reading(
    path: str, old: str, new: str, result: PatchResult, workspace: Workspace
) -> PatchResult:
    """`result` (the edit as written), or, when it leaves the Python file at `path`
    unparsable and `new` is code on one line, the edit with `new`'s line breaks put back."""
    if not path.endswith(".py") or "\n" in new or len(result.files) != 1:
        return result
    patched = result.files[0]
    if patched.after is None or parses(patched.after):
        return result
    for lines in _readings(new, _column(patched.before or "", old)):
        candidate = whole_definition(path, old, lines, workspace) or _as_written(
            path, old, lines, workspace
        )
        if candidate is not None:
            note = (
                f"{patched.path}: 'new' was one line; its runs of spaces between code were "
                "read as line breaks with that indentation"
            )
            file = candidate.files[0]
            return PatchResult((replace(file, adjustments=(*file.adjustments, note)),))
    return result


def _as_written(path: str, old: str, new: str, workspace: Workspace) -> PatchResult | None:
    """``propose_patch``'s edit of `old` into `new`, when the file then parses."""
    try:
        candidate = apply_search_replace(path, old, new, workspace)
    except PatchError:
        return None
    after = candidate.files[0].after
    return candidate if len(candidate.files) == 1 and after is not None and parses(after) else None


def _column(text: str, old: str) -> int:
    """The indentation of the line `old` begins on in `text` (0 when not found)."""
    at = text.find(old.strip())
    if at < 0:
        return 0
    start = text.rfind("\n", 0, at) + 1
    line = text[start:at]
    return len(line) if not line.strip() else 0


def _readings(new: str, column: int) -> Iterator[str]:
    """`new` with its breaks put back: indentation as written, then shifted by `column`."""
    breaks = _breaks(new)
    if not breaks:
        return
    for shift in dict.fromkeys((0, column)):
        pieces, last = [], 0
        for start, end in breaks:
            pieces.append(new[last:start])
            pieces.append("\n" + " " * (end - start + shift))
            last = end
        pieces.append(new[last:])
        yield "".join(pieces)


def _breaks(line: str) -> list[tuple[int, int]]:
    """The runs of `MIN_BREAK` or more spaces between two tokens of `line`, as (start, end)
    columns; none when `line` is not Python tokens."""
    try:
        tokens = [
            token
            for token in tokenize.generate_tokens(io.StringIO(line).readline)
            if token.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)
            and token.start[0] == 1
        ]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    runs: list[tuple[int, int]] = []
    for before, after in itertools.pairwise(tokens):
        start, end = before.end[1], after.start[1]
        if before.type != tokenize.INDENT and end - start >= MIN_BREAK:
            runs.append((start, end))
    return runs
