"""`read_file`: a file, or some of its lines, with the call that reads on."""

from __future__ import annotations

from collections.abc import Sequence

from safety.errors import read_file_call
from safety.validation import (
    validate_line_range,
)
from tools.base import AgentTool, ToolLimits
from tools.files.arguments import (
    PATH_INPUT,
)
from tools.files.output import (
    body_budget,
    fit_lines,
    text_lines,
)
from tools.files.workspace_text import (
    read_workspace_text,
)

MIN_READ_LINES = 20
"""read_file shows at least this many lines (fewer only at the end of the file)."""


class ReadFile(AgentTool):
    name = "read_file"
    read_only = True
    description = "Read a file, or only lines start_line to end_line."
    inputs = {
        "path": PATH_INPUT,
        "start_line": {
            "type": "integer",
            "description": "First line (1-based).",
            "nullable": True,
        },
        "end_line": {
            "type": "integer",
            "description": "Last line.",
            "nullable": True,
        },
    }
    path_inputs = ("path",)

    def forward(self, path: str, start_line: int | None = None, end_line: int | None = None) -> str:
        # Line numbers start at 1: a 0 can only mean "not given" (small models fill optional
        # arguments with 0); negative numbers are still refused with a hint.
        start_line, end_line = (None if n == 0 else n for n in (start_line, end_line))
        limits = self.context.limits
        canon, text = read_workspace_text(self.context.workspace, path)
        lines = text_lines(text)
        total = len(lines)
        if total == 0:
            return f"{canon} (empty file, 0 lines)"
        first, last = validate_line_range(
            start_line, end_line, total_lines=total, max_range=limits.max_line_range, path=canon
        )
        # A few lines are shown with what follows them, up to MIN_READ_LINES, and near the
        # end of the file with what comes before them: small models ask for
        # read_file(path, 1, 1) meaning the file, and for the one line a search named
        # (`inventory.py` line 12 of 12, `def restock`, whose constant RESTOCK_AMOUNT is on
        # line 3: Qwen2.5-Coder-1.5B answered with the constant's name). The output budget
        # still applies.
        last = max(last, min(total, first + MIN_READ_LINES - 1))
        first = min(first, max(1, last - MIN_READ_LINES + 1))
        until = total if end_line is None else last
        return render_lines(canon, lines, first, last, limits, until=until)


def render_lines(
    canon: str,
    lines: Sequence[str],
    first: int,
    last: int,
    limits: ToolLimits,
    *,
    until: int | None = None,
) -> str:
    """The header and lines ``first``..``last``, cut to the limits with the next exact call.

    ``until`` is the last line the caller wants in all (the end of the file when no end
    was asked for); the note points at the next part up to it.
    """
    total = len(lines)
    until = last if until is None else until
    header_guess = f"{canon} (lines {first}-{last} of {total})"
    chars, max_lines = body_budget(limits, header_guess)
    chunk = lines[first - 1 : last]
    count = fit_lines(chunk, chars, max_lines)
    if count == 0:
        line = chunk[0]
        note = (
            f"[truncated: line {first} is {len(line)} characters long; only the first {chars} "
            f'are shown. Search inside it with read_file_snippet(path="{canon}", pattern="...").'
        )
        if first < total:
            note += f" Next lines: {read_file_call(canon, first + 1, min(total, first + 50))}"
        header = f"{canon} (line {first} of {total}, cut)"
        return f"{header}\n{line[:chars]}\n{note}]"
    shown_last = first + count - 1
    header = f"{canon} (lines {first}-{shown_last} of {total})"
    body = "\n".join(chunk[:count])
    if shown_last >= until:
        return f"{header}\n{body}"
    # The next part runs to `until`, not to a chunk that fits: told "Next part: lines
    # 142-150" (a chunk), Qwen2.5-Coder-1.5B read 142-150, and no note then said where lines
    # 151-178 were: it read 142-150 again until the loop guard stopped it (grade-school,
    # react). A part that does not fit is cut again, with the part after it.
    next_end = min(until, shown_last + limits.max_line_range)
    note = (
        f"[truncated: lines {shown_last + 1}-{until} not shown. "
        f"Next part: {read_file_call(canon, shown_last + 1, next_end)}]"
    )
    return f"{header}\n{body}\n{note}"
