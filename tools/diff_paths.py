"""File paths in diff headers: git prefixes, quoting, and validation.

Every path is checked with ``safety.validation.validate_path`` (inside the workspace,
not a sensitive file) and returned workspace-relative; failures become PatchError.
"""

from __future__ import annotations

import os
import re
from pathlib import PurePosixPath

from safety.errors import ErrorType
from safety.sensitive import DEFAULT_SENSITIVE
from safety.validation import ValidationError, validate_path
from tools.patch_model import PatchError
from tools.workspace import Workspace, exists_quietly

DEV_NULL = "/dev/null"
_C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def diff_paths(
    source: str, target: str, workspace: Workspace | None
) -> tuple[str | None, str | None]:
    """The section's (old, new) workspace-relative paths; None for /dev/null.

    Git's ``a/``/``b/`` prefixes are stripped. When both sides name the same path (no
    git prefixes, or sloppy ones), the prefix is stripped only if that is what exists.
    """
    source, target = _unquote(source), _unquote(target)
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


def workspace_path(path: str | None, workspace: Workspace | None) -> str | None:
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


def _unquote(name: str) -> str:
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
