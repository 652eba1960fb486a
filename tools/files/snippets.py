"""`read_file_snippet`: the lines of a file that match a pattern, with context; a match in a
definition shows the definition to its end.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from safety.errors import read_file_call
from safety.secret_redaction import redact_secrets
from tools.base import AgentTool, ToolLimits
from tools.files.arguments import (
    PATH_INPUT,
    bounded_int,
    check_pattern,
)
from tools.files.output import (
    body_budget,
    clip_line,
    fit_lines,
    plural,
    text_lines,
)
from tools.files.workspace_text import (
    canonical_path,
    read_workspace_text,
)

DEFAULT_CONTEXT_LINES = 3


MAX_CONTEXT_LINES = 20
WHOLE_FILE_ON_MISS = 40
"""read_file_snippet shows a file this short whole when its pattern matches nothing."""


class ReadFileSnippet(AgentTool):
    name = "read_file_snippet"
    read_only = True
    description = "Show the lines of a file matching a regex, with context."
    inputs = {
        "path": PATH_INPUT,
        "pattern": {"type": "string", "description": "Regex."},
        "context_lines": {
            "type": "integer",
            "description": f"Context lines (default {DEFAULT_CONTEXT_LINES}).",
            "nullable": True,
        },
    }
    path_inputs = ("path",)

    def forward(self, path: str, pattern: str, context_lines: int | None = None) -> str:
        limits = self.context.limits
        canon = canonical_path(self.context.workspace, path)
        hint = f'Pass the text to find: read_file_snippet(path="{canon}", pattern="<text>").'
        pattern = check_pattern(pattern, limits, hint)
        context, note = bounded_int(
            "context_lines",
            context_lines,
            default=DEFAULT_CONTEXT_LINES,
            minimum=0,
            maximum=MAX_CONTEXT_LINES,
            hint=(
                f"Use a number from 0 to {MAX_CONTEXT_LINES}: "
                f'read_file_snippet(path="{canon}", pattern=..., context_lines=3).'
            ),
        )
        notes = [note] if note else []
        regex, regex_note = compile_or_literal(pattern)
        if regex_note:
            notes.append(regex_note)
        canon, text = read_workspace_text(self.context.workspace, canon)
        # matched as the model will see it: a pattern matching only inside a redacted
        # secret finds nothing (no oracle for the secret, one character a call)
        lines = text_lines(redact_secrets(text))
        hits = [i for i, line in enumerate(lines) if regex.search(line)]
        for text, how in _text_readings(pattern):
            if hits or re.escape(text) == regex.pattern:
                break
            found = re.compile(re.escape(text))
            hits = [i for i, line in enumerate(lines) if found.search(line)]
            if hits:
                notes.append(f"(No line matches the pattern as a regex; matched {how}.)")
        if not hits:
            notes.insert(0, f"No lines in {canon} match {pattern!r} ({len(lines)} lines).")
            return " ".join(notes) + _whole_short_file(lines, limits)
        blocks = merge_blocks(
            hits,
            context,
            len(lines),
            ends=definition_ends(lines, hits),
            starts=definition_starts(lines, hits),
        )
        header = (
            f"{canon}: {plural(len(hits), 'matching line')} in {plural(len(blocks), 'block')} "
            f"({len(lines)} lines in file)"
        )
        if notes:
            header += "\n" + " ".join(notes)
        return (
            header
            + "\n"
            + render_blocks(canon, lines, blocks, hits=hits, limits=limits, header=header)
        )


def _whole_short_file(lines: Sequence[str], limits: ToolLimits) -> str:
    """A file of at most `WHOLE_FILE_ON_MISS` lines, shown whole after a pattern that matched
    nothing in it (or "" when it is longer or does not fit). Told only that no line of a
    three-line data file matched `DATA_FILE`, Qwen2.5-Coder-1.5B answered with a name the file
    does not hold (L4); the file it asked about answers the question a pattern guessed at."""
    if not lines or len(lines) > WHOLE_FILE_ON_MISS:
        return ""
    header = f"The whole file:\n-- lines 1-{len(lines)} --"
    chars, max_lines = body_budget(limits, header)
    shown = [clip_line(line) for line in lines]
    if fit_lines(shown, chars, max_lines - 2) < len(shown):
        return ""
    return "\n" + header + "\n" + "\n".join(shown)


def _text_readings(pattern: str) -> list[tuple[str, str]]:
    """What a pattern that matches nothing as a regex may mean, as text: itself (`say(987654321123)`
    is a regex group, and matched nothing nine steps in a row), or a test id's last part
    (`say_test.py::SayTest::test_a_big_number`, copied from a check's list of failing tests,
    three patterns in a loop until the loop guard stopped the run: Qwen2.5-Coder-1.5B, say)."""
    readings = [(pattern, "it as text")]
    if "::" in pattern:
        name = pattern.rsplit("::", 1)[-1].strip()
        if name:
            readings.append((name, f"{name!r}, the test id's last part"))
    return readings


def compile_or_literal(pattern: str) -> tuple[re.Pattern[str], str]:
    """The compiled regex, or a literal match of ``pattern`` with a note when it is invalid."""
    try:
        return re.compile(pattern), ""
    except re.error as exc:
        note = f"(The pattern is not a valid regular expression ({exc}); matched it literally.)"
        return re.compile(re.escape(pattern)), note


def merge_blocks(
    hits: Sequence[int],
    context: int,
    total: int,
    ends: Mapping[int, int] | None = None,
    starts: Mapping[int, int] | None = None,
) -> list[tuple[int, int]]:
    """0-based inclusive line blocks around ``hits``, merged when they overlap or touch; a hit
    in ``ends`` (a definition's line) reaches at least to its end, and one in ``starts``
    begins there (its decorators and comments), not `context` lines above."""
    blocks: list[tuple[int, int]] = []
    for index in hits:
        start, end = max(0, index - context), min(total - 1, index + context)
        start = (starts or {}).get(index, start)
        end = max(end, (ends or {}).get(index, end))
        if blocks and start <= blocks[-1][1] + 1:
            blocks[-1] = (blocks[-1][0], max(blocks[-1][1], end))
        else:
            blocks.append((start, end))
    return blocks


_PY_DEFINITION = re.compile(r"^(\s*)(?:async\s+def|def|class)\s")
DEFINITION_LINES = 60


def definition_ends(lines: Sequence[str], hits: Sequence[int]) -> dict[int, int]:
    """For each hit on a Python `def`/`class` line, the last line of its body (at most
    `DEFINITION_LINES` on): a snippet of a function shows all of it. Qwen2.5-Coder-1.5B, shown
    `def total_stock(items):` and three lines of it, answered that the snippet "does not show
    the implementation" and read the file again."""
    ends: dict[int, int] = {}
    for index in hits:
        match = _PY_DEFINITION.match(lines[index])
        if match is None:
            continue
        indent, last = len(match.group(1)), index
        for row in range(index + 1, min(len(lines), index + 1 + DEFINITION_LINES)):
            text = lines[row]
            if text.strip() and len(text) - len(text.lstrip()) <= indent:
                break
            if text.strip():
                last = row
        ends[index] = last
    return ends


def definition_starts(lines: Sequence[str], hits: Sequence[int]) -> dict[int, int]:
    """For each hit on a Python `def`/`class` line, the first of the decorators and comments
    right above it: a snippet of a function starts there, not in the code before it.
    Through llama-server Qwen2.5-Coder-1.5B, shown `average` with three lines above it
    (`weighted_total`'s return line first), changed that first line (L6, 2 runs of 3)."""
    starts: dict[int, int] = {}
    for index in hits:
        if _PY_DEFINITION.match(lines[index]) is None:
            continue
        first = index
        while first > 0 and lines[first - 1].lstrip().startswith(("@", "#")):
            first -= 1
        starts[index] = first
    return starts


def render_blocks(
    canon: str,
    lines: Sequence[str],
    blocks: Sequence[tuple[int, int]],
    *,
    hits: Sequence[int],
    limits: ToolLimits,
    header: str,
) -> str:
    chars, max_lines = body_budget(limits, header)
    out: list[str] = []
    used_chars = used_lines = 0
    for start, end in blocks:
        shown = [clip_line(line) for line in lines[start : end + 1]]
        room_chars = chars - used_chars - 30
        room_lines = max_lines - used_lines - 1
        count = fit_lines(shown, room_chars, room_lines) if room_lines > 0 else 0
        first_hit = next(h for h in hits if h >= start)
        if count == 0 or start + count - 1 < first_hit:
            cut_at = start
        else:
            out.append(f"-- lines {start + 1}-{start + count} --")
            out.extend(shown[:count])
            used_chars += sum(len(s) + 1 for s in out[-count - 1 :])
            used_lines += count + 1
            if count == len(shown):
                continue
            cut_at = start + count
        left = sum(1 for h in hits if h >= cut_at)
        end_line = min(len(lines), cut_at + 50)
        out.append(
            f"[truncated: {plural(left, 'matching line')} from line {cut_at + 1} on not shown. "
            f"Read on with {read_file_call(canon, cut_at + 1, end_line)} "
            "or use a more specific pattern.]"
        )
        break
    return "\n".join(out)
