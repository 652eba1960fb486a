"""The parsed form of a unified diff, and the error a bad one raises.

Text is handled as lists of lines that keep their own line ending (split on ``"\\n"``
only), so CRLF, lone ``"\\r"`` and a missing final newline survive every round trip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from safety.errors import ErrorType, ToolError

NO_NEWLINE_MARKER = "\\ No newline at end of file\n"

LineKind = Literal[" ", "-", "+"]
FileChange = Literal["modify", "create", "delete", "rename"]


class PatchError(ToolError):
    """A patch that cannot be parsed or applied; everything the recovery hint needs.

    ``kind`` (the error type) defaults to ``patch_invalid``. For a hunk that does not
    apply, ``file``, ``hunk`` (1-based), ``expected`` (the hunk's old lines) and
    ``current`` (the current text around the best candidate location, numbered from
    ``current_start``) are set; they make up the schema's ``context``.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: ErrorType = ErrorType.PATCH_INVALID,
        recovery_suggestion: str = "",
        file: str | None = None,
        hunk: int | None = None,
        expected: Sequence[str] = (),
        current: str = "",
        current_start: int | None = None,
    ) -> None:
        super().__init__(kind, message, recovery_suggestion)
        self.file = file
        self.hunk = hunk
        self.expected = tuple(expected)
        self.current = current
        self.current_start = current_start

    @property
    def kind(self) -> ErrorType:
        """The error type (the same as `error_type`)."""
        return self.error_type

    @property
    def context(self) -> dict[str, Any]:
        """The set fields, for the error schema's ``context``."""
        items: dict[str, Any] = {
            "file": self.file,
            "hunk": self.hunk,
            "expected": "".join(self.expected) if self.expected else None,
            "current": self.current or None,
            "current_start_line": self.current_start,
        }
        return {k: v for k, v in items.items() if v is not None}


@dataclass(frozen=True)
class DiffLine:
    """One hunk body line: kind and text including its line ending (if it has one)."""

    kind: LineKind
    text: str


@dataclass(frozen=True)
class DiffHunk:
    """A parsed hunk; counts come from the body, not from the (possibly wrong) header."""

    header: str
    old_start: int
    new_start: int
    lines: tuple[DiffLine, ...]
    located: bool = True
    """False when the header carried no line numbers (placed by content only)."""

    @property
    def old_lines(self) -> list[str]:
        return [line.text for line in self.lines if line.kind != "+"]

    @property
    def new_lines(self) -> list[str]:
        return [line.text for line in self.lines if line.kind != "-"]

    @property
    def has_no_newline_marker(self) -> bool:
        return any(not line.text.endswith("\n") for line in self.lines)


@dataclass(frozen=True)
class FileDiff:
    """One file's section of a diff. ``old_path`` is None for a new file, ``new_path``
    None for a deletion; both are set (and differ) for a rename."""

    old_path: str | None
    new_path: str | None
    hunks: tuple[DiffHunk, ...]
    notes: tuple[str, ...] = ()
    """What was repaired while parsing (hunk counts, unprefixed lines, ...)."""

    @property
    def path(self) -> str:
        path = self.new_path or self.old_path
        assert path is not None
        return path

    @property
    def change(self) -> FileChange:
        if self.old_path is None:
            return "create"
        if self.new_path is None:
            return "delete"
        return "rename" if self.old_path != self.new_path else "modify"


@dataclass(frozen=True)
class ParsedDiff:
    """A diff parsed strictly (`parse_strict`), for `git apply` and the strict applier."""

    text: str
    """The diff, ending with a newline (git apply wants one)."""
    files: tuple[FileDiff, ...]
    strip: int
    """The `-p` level for `git apply`: 1 for a/ b/ prefixes, else 0."""

    @property
    def paths(self) -> tuple[str, ...]:
        """Every path the diff touches (renames give both), in order."""
        seen: dict[str, None] = {}
        for change in self.files:
            for name in (change.old_path, change.new_path):
                if name:
                    seen[name] = None
        return tuple(seen)


def lines_with_ends(text: str) -> list[str]:
    """Lines keeping their endings, split on ``"\\n"`` only (``"\\r"`` stays in the line)."""
    if not text:
        return []
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out
