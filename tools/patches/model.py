"""What a tool's patch is: every touched file's text before and after, and its diff.

Parsing and applying model-supplied diffs lives in `safety.unified_diff` (shared with the
sandbox); `PatchError`, `lines_with_ends` and the parsed-diff types are re-exported here.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from safety.unified_diff import (
    NO_NEWLINE_MARKER,
    DiffHunk,
    DiffLine,
    FileChange,
    FileDiff,
    PatchError,
    lines_with_ends,
)

__all__ = [
    "CONTEXT_LINES",
    "DiffHunk",
    "DiffLine",
    "FileChange",
    "FileDiff",
    "FilePatch",
    "HunkSpan",
    "PatchError",
    "PatchResult",
    "lines_with_ends",
    "render_unified_diff",
    "unified_hunks",
]

CONTEXT_LINES = 3


@dataclass(frozen=True)
class HunkSpan:
    """A hunk of the canonical diff: its header and its real line numbers."""

    header: str
    old_start: int
    old_len: int
    new_start: int
    new_len: int


@dataclass(frozen=True)
class FilePatch:
    """One file's change: text before (None: created) and after (None: deleted).

    ``path`` is the file after the change (the old path for a deletion); ``old_path``
    the file before it (None when created; differs from ``path`` for a rename).
    ``base_version`` is the workspace document version the patch was made against.
    """

    path: str
    old_path: str | None
    before: str | None
    after: str | None
    base_version: int | None = None
    adjustments: tuple[str, ...] = ()
    hunks: tuple[HunkSpan, ...] = field(init=False)

    def __post_init__(self) -> None:
        before = lines_with_ends(self.before or "")
        after = lines_with_ends(self.after or "")
        object.__setattr__(self, "hunks", tuple(span for span, _ in unified_hunks(before, after)))

    @property
    def change(self) -> FileChange:
        if self.old_path is None:
            return "create"
        if self.after is None:
            return "delete"
        return "rename" if self.old_path != self.path else "modify"

    @property
    def diff(self) -> str:
        """The canonical unified diff of this change (applies exactly, also with git)."""
        return render_unified_diff(
            self.path, self.before, self.after, old_path=self.old_path or self.path
        )


@dataclass(frozen=True)
class PatchResult:
    """A diff applied in memory to the workspace: the full new text of every file."""

    files: tuple[FilePatch, ...]

    @property
    def paths(self) -> list[str]:
        """Every path the patch touches (renames give both)."""
        out: list[str] = []
        for f in self.files:
            for p in (f.old_path, f.path):
                if p is not None and p not in out:
                    out.append(p)
        return out

    @property
    def adjustments(self) -> list[str]:
        return [note for f in self.files for note in f.adjustments]

    @property
    def diff(self) -> str:
        """The canonical diff of the whole change."""
        return "".join(f.diff for f in self.files)

    def file(self, path: str) -> FilePatch:
        for f in self.files:
            if path in (f.path, f.old_path):
                return f
        raise KeyError(path)


def _format_range(start: int, length: int) -> str:
    """difflib's unified range format: ``start`` for one line, ``start,length`` else."""
    beginning = start + 1
    if length == 1:
        return str(beginning)
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def _range_start(start: int, length: int) -> int:
    return start + 1 if length else start


def unified_hunks(
    before: Sequence[str], after: Sequence[str], context: int = CONTEXT_LINES
) -> Iterator[tuple[HunkSpan, list[str]]]:
    """The hunks of a unified diff between two line lists, with their body lines."""
    matcher = difflib.SequenceMatcher(None, before, after)
    for group in matcher.get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        header = f"@@ -{_format_range(i1, i2 - i1)} +{_format_range(j1, j2 - j1)} @@"
        body: list[str] = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                body.extend(_body_line(" ", line) for line in before[a1:a2])
                continue
            body.extend(_body_line("-", line) for line in before[a1:a2])
            body.extend(_body_line("+", line) for line in after[b1:b2])
        span = HunkSpan(
            header,
            _range_start(i1, i2 - i1),
            i2 - i1,
            _range_start(j1, j2 - j1),
            j2 - j1,
        )
        yield span, body


def _body_line(prefix: str, line: str) -> str:
    if line.endswith("\n"):
        return prefix + line
    return prefix + line + "\n" + NO_NEWLINE_MARKER


def render_unified_diff(
    path: str,
    before: str | None,
    after: str | None,
    *,
    old_path: str | None = None,
) -> str:
    """A git-style unified diff turning ``before`` into ``after``.

    ``before=None`` creates ``path``, ``after=None`` deletes it; ``old_path`` (when it
    differs from ``path``) makes it a rename. Returns ``""`` when nothing changes.
    Lines without a final newline get ``\\ No newline at end of file``.
    """
    source = old_path or path
    body = "".join(
        span.header + "\n" + "".join(lines)
        for span, lines in unified_hunks(
            lines_with_ends(before or ""), lines_with_ends(after or "")
        )
    )
    header = [f"diff --git a/{source} b/{path}\n"]
    if before is None:
        header.append("new file mode 100644\n")
    elif after is None:
        header.append("deleted file mode 100644\n")
    elif source != path:
        header += [f"rename from {source}\n", f"rename to {path}\n"]
    elif not body:
        return ""
    if body:
        old_name = "/dev/null" if before is None else f"a/{source}"
        new_name = "/dev/null" if after is None else f"b/{path}"
        header += [f"--- {old_name}\n", f"+++ {new_name}\n"]
    return "".join(header) + body
