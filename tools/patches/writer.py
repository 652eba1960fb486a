"""Write an approved PatchResult to disk: all files or none.

Every file is checked first: its bytes on disk must still be the patch's ``before`` text
(a file to create must not exist). Then each file is written atomically (a temporary
file in the same directory, then ``os.replace``), keeping its permission bits. If any
write fails, the files already written are restored, so a failed apply leaves every file
byte-identical.
"""

from __future__ import annotations

import contextlib
import os
import stat
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from safety.validation import ValidationError, read_regular, validate_path
from tools.patches.model import PatchResult

NEW_FILE_MODE = 0o666  # before the umask, like any editor-created file


@dataclass(frozen=True)
class WriteOutcome:
    """``applied`` (every file written), ``failed`` or ``rejected`` (no file changed)."""

    status: Literal["applied", "failed", "rejected"]
    reason: str
    files: list[str] = field(default_factory=list)


class PatchWriter(Protocol):
    """Writes an approved patch: to disk headless, as a workspace edit in the editor."""

    def write(self, result: PatchResult) -> WriteOutcome: ...


@dataclass(frozen=True)
class _Op:
    rel: str
    path: Path
    expected: bytes | None
    """The bytes the file must have now; None: it must not exist."""
    content: bytes | None
    """The bytes to write; None: delete the file."""


@dataclass(frozen=True)
class _Backup:
    path: Path
    content: bytes | None
    mode: int | None


class DiskPatchWriter:
    """Applies patches to the files under ``root``."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).resolve()

    def write(self, result: PatchResult) -> WriteOutcome:
        try:
            ops = self._plan(result)
        except ValidationError as exc:
            return WriteOutcome("failed", f"refused: {exc.message}; nothing was written")
        stale = [op.rel for op in ops if _current(op.path) != op.expected]
        if stale:
            return WriteOutcome(
                "failed",
                f"stale: {', '.join(stale)} changed on disk since the patch was made; "
                "nothing was written",
                stale,
            )
        backups: list[_Backup] = []
        created_dirs: list[Path] = []
        for op in ops:
            try:
                backups.append(_perform(op, created_dirs))
            except OSError as exc:
                problems = _rollback(backups, created_dirs)
                why = f"could not write {op.rel}: {exc.strerror or exc}"
                if problems:
                    return WriteOutcome(
                        "failed", f"{why}; ROLLBACK INCOMPLETE: {'; '.join(problems)}"
                    )
                return WriteOutcome("failed", f"{why}; rolled back, no file was changed")
        return WriteOutcome("applied", "", [op.rel for op in ops])

    def _plan(self, result: PatchResult) -> list[_Op]:
        ops: list[_Op] = []
        for f in result.files:
            before = None if f.before is None else f.before.encode("utf-8")
            after = None if f.after is None else f.after.encode("utf-8")
            target = validate_path(self.root, f.path)
            if f.old_path is not None and f.old_path != f.path:
                source = validate_path(self.root, f.old_path)
                ops.append(_Op(f.path, target, None, after))
                ops.append(_Op(f.old_path, source, before, None))
            else:
                ops.append(_Op(f.path, target, before, after))
        return ops


def _current(path: Path) -> bytes | None:
    try:
        return read_regular(path)
    except FileNotFoundError:
        return None
    except OSError:
        return b"\0unreadable"


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return None


def _perform(op: _Op, created_dirs: list[Path]) -> _Backup:
    backup = _Backup(op.path, _current(op.path), _mode(op.path))
    if op.content is None:
        op.path.unlink()
    else:
        _make_parents(op.path.parent, created_dirs)
        atomic_write(op.path, op.content, backup.mode)
    return backup


def _make_parents(directory: Path, created_dirs: list[Path]) -> None:
    missing: list[Path] = []
    current = directory
    while not current.exists():
        missing.append(current)
        current = current.parent
    for path in reversed(missing):
        path.mkdir()
        created_dirs.append(path)


def atomic_write(path: Path, content: bytes, mode: int | None) -> None:
    """Write ``content`` to a temporary file next to ``path``, then ``os.replace`` it."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, NEW_FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _rollback(backups: list[_Backup], created_dirs: list[Path]) -> list[str]:
    problems: list[str] = []
    for backup in reversed(backups):
        try:
            if backup.content is None:
                backup.path.unlink(missing_ok=True)
            else:
                atomic_write(backup.path, backup.content, backup.mode)
        except OSError as exc:
            problems.append(f"{backup.path}: {exc.strerror or exc}")
    for directory in reversed(created_dirs):
        with contextlib.suppress(OSError):
            directory.rmdir()
    return problems
