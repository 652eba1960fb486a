"""Apply a unified diff to a Workspace's current text, in memory.

Sections are applied in order (a file may appear more than once); creations, deletions
and renames are checked against the workspace. The result holds every touched file's
full text before and after, plus notes on anything that was not applied exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from safety.errors import ErrorType, closest_paths, read_file_call
from safety.unified_diff import FORMAT_HINT, apply_hunks, exists_quietly, parse_diff
from safety.validation import ValidationError
from tools.patches.model import DiffHunk, FileDiff, FilePatch, PatchError, PatchResult
from tools.workspace import NotTextError, Workspace


@dataclass
class _Pending:
    """A file's change while the diff's sections are applied in order."""

    path: str
    old_path: str | None
    before: str | None
    after: str | None
    base_version: int | None
    notes: list[str] = field(default_factory=list)


def apply_diff(diff: str, workspace: Workspace) -> PatchResult:
    """Apply ``diff`` to the workspace's current text (in memory) or raise PatchError."""
    pending: dict[str, _Pending] = {}
    for section in parse_diff(diff, workspace):
        _apply_section(section, workspace, pending)
    files = tuple(
        FilePatch(p.path, p.old_path, p.before, p.after, p.base_version, tuple(p.notes))
        for p in pending.values()
    )
    changed = [
        f
        for f in files
        if (f.before is not None or f.after is not None)  # not created, then deleted
        and (f.before != f.after or f.old_path != f.path)
    ]
    if not changed:
        names = ", ".join(f.path for f in files)
        raise PatchError(
            f"The diff makes no change to {names}: every hunk is context only.",
            recovery_suggestion="Mark removed lines with '-' and added lines with '+'.",
            file=files[0].path if files else None,
        )
    return PatchResult(tuple(changed))


def _apply_section(section: FileDiff, workspace: Workspace, pending: dict[str, _Pending]) -> None:
    notes = list(section.notes)
    change = section.change
    if change == "create":
        _create(section, workspace, pending, notes)
        return
    source = section.old_path
    assert source is not None
    if source in pending:
        entry = pending[source]
        if entry.after is None:
            raise PatchError(
                f"{source} is deleted earlier in the same diff.",
                recovery_suggestion="Send each file's change once.",
                file=source,
            )
        notes.append(f"{source} appears in more than one section of the diff; applied in order")
        text = entry.after
    else:
        current = _read(workspace, source, section)
        if current is None:
            notes.append(f"{source} does not exist; the diff was applied as a new file")
            _create(replace(section, old_path=None), workspace, pending, notes)
            return
        text = current
        entry = _Pending(source, source, text, text, workspace.version(source))
        pending[source] = entry
    after, hunk_notes = apply_hunks(text, section, source)
    entry.notes.extend(notes + hunk_notes)
    if change == "delete":
        if after.strip():
            entry.notes.append(f"{source}: the deletion diff did not list every line; deleted all")
        entry.after = None
        return
    entry.after = after
    if change == "rename":
        target = section.new_path
        assert target is not None
        if target in pending or exists_quietly(workspace, target):
            raise PatchError(
                f"Cannot rename {source} to {target}: {target} already exists.",
                recovery_suggestion="Rename to a path that does not exist, or patch it instead.",
                file=target,
            )
        del pending[source]
        entry.path = target
        pending[target] = entry


def _create(
    section: FileDiff, workspace: Workspace, pending: dict[str, _Pending], notes: list[str]
) -> None:
    path = section.path
    earlier = pending.get(path)
    existing = earlier.after if earlier is not None else _read_existing(workspace, path)
    if existing:
        raise PatchError(
            f"{path} already exists, but the diff creates it (from /dev/null).",
            recovery_suggestion=(
                f"Read it with {read_file_call(path, 1, 50)} and send a diff against its "
                "current text ('--- a/PATH')."
            ),
            file=path,
        )
    if any(hunk.old_lines for hunk in section.hunks):
        raise PatchError(
            f"The diff creates {path} but has ' ' or '-' lines; a new file has only '+' lines.",
            recovery_suggestion=FORMAT_HINT,
            file=path,
        )
    after, hunk_notes = apply_hunks("", section, path)
    if earlier is None:
        # An existing empty file is modified, not created.
        old_path = None if existing is None else path
        version = None if existing is None else workspace.version(path)
        earlier = _Pending(path, old_path, existing, after, version)
        pending[path] = earlier
    earlier.after = after
    earlier.notes.extend(notes + hunk_notes)


def _read_existing(workspace: Workspace, path: str) -> str | None:
    if not exists_quietly(workspace, path):
        return None
    return read_or_raise(workspace, path)


def _read(workspace: Workspace, path: str, section: FileDiff) -> str | None:
    """The current text, or None when a missing file can be created by the section."""
    if exists_quietly(workspace, path):
        return read_or_raise(workspace, path)
    # "--- a/PATH" with "@@ -0,0 +1,N @@" (no /dev/null) still means "create PATH".
    hunks = section.hunks
    if section.change == "modify" and hunks and all(_creates(h) for h in hunks):
        return None
    raise missing_file_error(workspace, path)


def _creates(hunk: DiffHunk) -> bool:
    return hunk.old_start == 0 and not hunk.old_lines


def read_or_raise(workspace: Workspace, path: str) -> str:
    """The file's current text; unreadable or unsafe files become PatchError."""
    try:
        return workspace.read_text(path)
    except NotTextError as exc:
        raise PatchError(
            str(exc),
            recovery_suggestion="Only UTF-8 text files can be patched.",
            file=path,
        ) from exc
    except ValidationError as exc:
        raise PatchError(
            exc.message, kind=exc.error_type, recovery_suggestion=exc.recovery_suggestion
        ) from exc
    except FileNotFoundError as exc:
        raise missing_file_error(workspace, path) from exc
    except OSError as exc:
        raise PatchError(
            f"{path} cannot be read: {exc.strerror or exc}",
            kind=ErrorType.INVALID_PATH,
            recovery_suggestion="Patch a regular text file.",
            file=path,
        ) from exc


def missing_file_error(workspace: Workspace, path: str) -> PatchError:
    """FILE_NOT_FOUND, naming similar existing paths."""
    try:
        similar = closest_paths(path, workspace.list_files())
    except OSError:
        similar = []
    hint = f" Similar paths: {', '.join(similar)}." if similar else ""
    return PatchError(
        f"{path} does not exist.{hint}",
        kind=ErrorType.FILE_NOT_FOUND,
        recovery_suggestion=(
            'Check the path with list_files(pattern="**/*"); to create a file, diff it '
            'from /dev/null or use propose_patch(path, old="", new=CONTENT).'
        ),
        file=path,
    )
