"""Undo a job: what it wrote, file by file, and the reverse of it, applied like `git apply -R`.

A host records every write of a job in a `WriteJournal` (`RecordingWriter` wraps its
`PatchWriter`). `plan_undo` takes the journal and the files as they are now and reverses
the job's writes, newest first, each strictly (exact lines, no fuzz; a hunk may have
moved): lines the user changed elsewhere in a file stay as they are, and a file whose
lines the job wrote were edited since is left whole and named in `changed_since`. A file
the job created is removed only while it holds exactly what the job wrote; a file it
deleted (or renamed away) comes back only while its path is free.

The plan is a `PatchResult` (each file's current text -> its restored text) that the host
writes like any approved patch: through `workspace/applyEdit` in the editor, with
`DiskPatchWriter` headless. Both check again that nothing moved meanwhile.
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from safety.unified_diff import DiffHunk, DiffLine, FileDiff, ParsedDiff, PatchError, apply_to_texts
from tools.patches.model import CONTEXT_LINES, FilePatch, PatchResult, lines_with_ends
from tools.patches.writer import PatchWriter, WriteOutcome
from tools.workspace import Workspace

__all__ = [
    "RecordingWriter",
    "UndoPlan",
    "WriteJournal",
    "Written",
    "plan_undo",
    "workspace_reader",
]

Reader = Callable[[str], str | None]  # repo-relative path -> current text, None if missing
UNREADABLE = "\0(unreadable)"  # matches no text a job wrote: such a file is left alone


def workspace_reader(workspace: Workspace) -> Reader:
    """A `Reader` over a workspace (open documents first in the editor, else the disk)."""

    def read(path: str) -> str | None:
        try:
            return workspace.read_text(path) if workspace.exists(path) else None
        except (OSError, ValueError):
            return UNREADABLE

    return read


@dataclass(frozen=True)
class Written:
    """One file as one write of a job changed it (`before` None: created; `after` None:
    deleted; `old_path` differs from `path` for a rename)."""

    path: str
    old_path: str | None
    before: str | None
    after: str | None

    @classmethod
    def of(cls, file: FilePatch) -> Written:
        return cls(file.path, file.old_path, file.before, file.after)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "oldPath": self.old_path,
            "before": self.before,
            "after": self.after,
        }

    @classmethod
    def from_json(cls, data: Any) -> Written:
        if not isinstance(data, dict) or not isinstance(data.get("path"), str):
            raise ValueError("a written file needs a path")
        fields = [data.get(key) for key in ("oldPath", "before", "after")]
        if any(value is not None and not isinstance(value, str) for value in fields):
            raise ValueError(f"{data['path']}: oldPath, before and after are strings or null")
        return cls(data["path"], *fields)


class WriteJournal:
    """Every file a job wrote, in the order written (thread-safe)."""

    def __init__(self, writes: Iterable[Written] = ()) -> None:
        self._lock = threading.Lock()
        self._writes = list(writes)

    def record(self, files: Iterable[FilePatch]) -> None:
        with self._lock:
            self._writes.extend(Written.of(file) for file in files)

    def writes(self) -> list[Written]:
        with self._lock:
            return list(self._writes)

    def paths(self) -> list[str]:
        """Every path the job changed, in order (renames give both)."""
        seen: dict[str, None] = {}
        for write in self.writes():
            for path in (write.old_path, write.path):
                if path is not None:
                    seen[path] = None
        return list(seen)

    def __bool__(self) -> bool:
        with self._lock:
            return bool(self._writes)


class RecordingWriter:
    """A `PatchWriter` that records what the wrapped writer wrote into a journal."""

    def __init__(self, inner: PatchWriter, journal: WriteJournal) -> None:
        self.inner = inner
        self.journal = journal

    def write(self, result: PatchResult) -> WriteOutcome:
        outcome = self.inner.write(result)
        if outcome.status == "applied":
            self.journal.record(outcome.written or result.files)
        return outcome


@dataclass(frozen=True)
class UndoPlan:
    """What undoing a job does: `result` restores files; `changed_since` are left alone."""

    result: PatchResult
    changed_since: tuple[str, ...] = ()
    reasons: dict[str, str] = field(default_factory=dict)

    @property
    def restored(self) -> list[str]:
        return self.result.paths

    def describe(self) -> str:
        """One sentence for the user: what comes back, what stays and why."""
        parts = []
        if self.restored:
            parts.append(f"restores {', '.join(self.restored)}")
        if self.changed_since:
            left = "; ".join(f"{path} ({self.reasons[path]})" for path in self.changed_since)
            parts.append(f"leaves {left}")
        return " and ".join(parts) if parts else "nothing to restore"


def _hunks(old: str, new: str) -> tuple[DiffHunk, ...]:
    """The hunks turning `old` into `new` (the canonical diff's grouping, as parsed hunks)."""
    a, b = lines_with_ends(old), lines_with_ends(new)
    hunks = []
    for group in difflib.SequenceMatcher(None, a, b).get_grouped_opcodes(CONTEXT_LINES):
        lines: list[DiffLine] = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                lines += [DiffLine(" ", line) for line in a[a1:a2]]
                continue
            lines += [DiffLine("-", line) for line in a[a1:a2]]
            lines += [DiffLine("+", line) for line in b[b1:b2]]
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        old_start = i1 + 1 if i2 > i1 else i1
        new_start = j1 + 1 if j2 > j1 else j1
        header = f"@@ -{old_start} +{new_start} @@"
        hunks.append(DiffHunk(header, old_start, new_start, tuple(lines)))
    return tuple(hunks)


def _reverse(write: Written) -> FileDiff:
    """The diff taking `write.after` back to `write.before` (a `git apply -R` of it)."""
    hunks = _hunks(write.after or "", write.before or "")
    if write.old_path is None:  # created: remove it again
        return FileDiff(write.path, None, hunks)
    if write.after is None:  # deleted: bring it back
        return FileDiff(None, write.old_path, hunks)
    return FileDiff(write.path, write.old_path, hunks)


def _why(write: Written, current: Reader) -> str:
    """Why the reverse of `write` does not apply to the files as they are now."""
    if write.after is None:
        return "a file of that name exists again"
    if write.old_path is not None and write.old_path != write.path and current(write.old_path):
        return f"{write.old_path} exists again"
    if current(write.path) is None:
        return "it was deleted since"
    return "the lines the job wrote were edited since"


def _groups(writes: Sequence[Written]) -> dict[str, frozenset[str]]:
    """Each path with every path a rename in `writes` links it to."""
    group: dict[str, set[str]] = {}
    for write in writes:
        members = {p for p in (write.path, write.old_path) if p is not None}
        for path in list(members):
            members |= group.get(path, set())
        for path in members:
            group[path] = members
    return {path: frozenset(members) for path, members in group.items()}


def plan_undo(writes: Sequence[Written], read: Reader) -> UndoPlan:
    """Reverse `writes` (newest first) against the files as `read` returns them now.

    A file (with the files renames link it to) is restored whole or not at all."""
    state: dict[str, str | None] = {}
    reasons: dict[str, str] = {}
    groups = _groups(writes)

    def current(path: str) -> str | None:
        return state[path] if path in state else read(path)

    def leave(path: str, why: str) -> None:
        for member in sorted(groups[path]):
            reasons.setdefault(member, why if member == path else f"linked to {path} by a rename")

    for write in reversed(writes):
        if write.path in reasons:
            continue
        try:
            state.update(apply_to_texts(ParsedDiff("", (_reverse(write),), 0), current))
        except PatchError:
            leave(write.path, _why(write, current))
    order = {path: n for n, path in enumerate(_groups(writes))}
    files = []
    for path, text in sorted(state.items(), key=lambda item: order.get(item[0], 0)):
        now = read(path)
        if path in reasons or now == text:
            continue
        files.append(FilePatch(path, None if now is None else path, now, text))
    return UndoPlan(PatchResult(tuple(files)), tuple(reasons), reasons)
