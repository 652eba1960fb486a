"""File paths in diff headers: git prefixes, quoting, and validation.

Tolerant (`diff_paths`, for the tools): every path is checked with
``safety.validation.validate_path`` (inside the workspace, not a sensitive file) and
returned workspace-relative. Strict (`safe_relative_path`, for the sandbox and editor
overlays): repo-relative POSIX paths only, no absolute path, no ``..``, nothing in
``.git``, no control characters. Failures become PatchError.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Protocol

from safety.errors import ErrorType
from safety.sensitive import DEFAULT_SENSITIVE
from safety.unified_diff.model import PatchError
from safety.validation import ValidationError, validate_path

DEV_NULL = "/dev/null"
_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


class PathLookup(Protocol):
    """Where diff paths are resolved (a `tools.workspace.Workspace` is one)."""

    @property
    def root(self) -> Path: ...

    def exists(self, rel_path: str) -> bool: ...


def exists_quietly(workspace: PathLookup, rel_path: str) -> bool:
    """``workspace.exists``, False instead of an error for unsafe or unreadable paths."""
    try:
        return workspace.exists(rel_path)
    except (ValidationError, OSError, ValueError):
        return False


def diff_paths(
    source: str, target: str, workspace: PathLookup | None
) -> tuple[str | None, str | None]:
    """The section's (old, new) workspace-relative paths; None for /dev/null.

    Git's ``a/``/``b/`` prefixes are stripped. When both sides name the same path (no
    git prefixes, or sloppy ones), the prefix is stripped only if that is what exists.
    """
    source, target = unquote(source), unquote(target)
    src = None if source == DEV_NULL else source
    tgt = None if target == DEV_NULL else target
    if src is not None and src == tgt:
        same = src
        if same.startswith(("a/", "b/")) and not (
            workspace is not None and exists_quietly(workspace, same)
        ):
            same = same[2:]
        path = workspace_path(same, workspace)
        return path, path
    old = workspace_path(_strip_prefix(src, "a/"), workspace)
    new = workspace_path(_strip_prefix(tgt, "b/"), workspace)
    return old, new


def _strip_prefix(name: str | None, prefix: str) -> str | None:
    if name is not None and name.startswith(prefix):
        return name[len(prefix) :]
    return name


def workspace_path(path: str | None, workspace: PathLookup | None) -> str | None:
    """``path`` validated and made workspace-relative (lexically without a workspace)."""
    if path is None:
        return None
    if workspace is None:
        return _lexical_path(path)
    try:
        resolved = validate_path(workspace.root, path)
    except ValidationError as exc:
        raise PatchError(
            exc.message,
            kind=exc.error_type,
            recovery_suggestion=exc.recovery_suggestion,
            file=path,
        ) from exc
    return resolved.relative_to(workspace.root.resolve()).as_posix()


def _lexical_path(path: str) -> str:
    pure = PurePosixPath(path)
    normal = os.path.normpath(path)
    if pure.is_absolute() or normal == ".." or normal.startswith("../"):
        raise PatchError(
            f"Refused: {path!r} is outside the workspace.",
            kind=ErrorType.PATH_OUTSIDE_WORKSPACE,
            recovery_suggestion="Use paths relative to the workspace root.",
            file=path,
        )
    hit = DEFAULT_SENSITIVE.match(normal)
    if hit:
        raise PatchError(
            f"Refused: {path!r} is a sensitive file ({hit}).",
            kind=ErrorType.SENSITIVE_PATH,
            recovery_suggestion="Secrets and keys cannot be patched; change source files.",
            file=path,
        )
    return normal


def unquote(name: str) -> str:
    """Undo git's C-style quoting of unusual file names (``"a/caf\\303\\251.py"``)."""
    if len(name) < 2 or not (name.startswith('"') and name.endswith('"')):
        return name
    inner = name[1:-1]
    out = bytearray()
    i = 0
    while i < len(inner):
        ch = inner[i]
        if ch != "\\" or i + 1 == len(inner):
            out += ch.encode("utf-8")
            i += 1
            continue
        nxt = inner[i + 1]
        if nxt in "0123" and re.match(r"[0-7]{3}", inner[i + 1 : i + 4]):
            out.append(int(inner[i + 1 : i + 4], 8))
            i += 4
            continue
        out.append(_C_ESCAPES.get(nxt, ord(nxt) if nxt.isascii() else 63))
        i += 2
    return out.decode("utf-8", errors="replace")


# --- strict: the sandbox's rules ----------------------------------------------------------


def invalid(message: str) -> PatchError:
    """A PatchError for a diff (or overlay path) that cannot be checked."""
    return PatchError(message, kind=ErrorType.PATCH_INVALID)


def safe_relative_path(raw: str, *, what: str = "path") -> str:
    """`raw` as a normalised repo-relative POSIX path, or raise PatchError."""
    name = unquote(raw.strip())
    if not name:
        raise invalid(f"empty {what}")
    if _CONTROL.search(name):
        raise invalid(f"{what} {raw!r} contains control characters")
    if "\\" in name:
        raise invalid(f"{what} {raw!r} contains a backslash; use forward slashes")
    if name.startswith(("/", "~")) or _DRIVE.match(name):
        raise invalid(f"{what} {raw!r} is absolute: it must be relative to the repository")
    parts = [part for part in PurePosixPath(name).parts if part not in ("", ".")]
    if ".." in parts:
        raise invalid(f"{what} {raw!r} leaves the repository (`..`)")
    if not parts:
        raise invalid(f"{what} {raw!r} names the repository itself, not a file")
    if ".git" in parts:
        raise invalid(f"{what} {raw!r} is inside `.git`, which patches may not touch")
    return "/".join(parts)


def vet_overlay(overlay: Mapping[str, str] | None) -> dict[str, str]:
    """Check overlay paths (unsaved editor buffers) with the strict rules."""
    if not overlay:
        return {}
    clean: dict[str, str] = {}
    for raw, content in overlay.items():
        if not isinstance(content, str):
            raise TypeError(f"overlay content for {raw!r} must be a str")
        clean[safe_relative_path(raw, what="overlay path")] = content
    return clean


def strip_level(names: list[tuple[str | None, str | None]]) -> int:
    """The `-p` level for `git apply`: 1 when every side has its a/ b/ prefix, else 0."""
    sides = [
        (side, unquote(name))
        for source, target in names
        for side, name in (("a/", source), ("b/", target))
        if name and unquote(name) != DEV_NULL
    ]
    if sides and all(name.startswith(side) for side, name in sides):
        return 1
    return 0


def strict_side(raw: str | None, strip: int) -> str | None:
    """One side of a file header, strictly: None for /dev/null, else a safe path."""
    if raw is None:
        return None
    name = unquote(raw)
    if name == DEV_NULL:
        return None
    if strip:
        name = name[2:]
    return safe_relative_path(name)
