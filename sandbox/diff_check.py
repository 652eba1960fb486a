"""Parse a unified diff with unidiff and refuse what no sandbox should try to apply.

Refused, with a message the model can act on: text that is not a unified diff, paths
that are absolute, climb out with `..`, or point into `.git`, binary patches, symlinks
and submodules. Overlay paths (the editor's unsaved buffers) follow the same path rules.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

DEV_NULL = "/dev/null"
_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class BadDiff(ValueError):
    """The diff (or an overlay path) cannot be checked; the message says why."""


@dataclass(frozen=True)
class FileChange:
    """One file the diff touches; paths are repo-relative POSIX paths."""

    kind: str  # "add", "delete", "modify" or "rename"
    source: str | None  # None for an added file
    target: str | None  # None for a deleted file

    @property
    def path(self) -> str:
        return self.target or self.source or ""


@dataclass(frozen=True)
class ParsedDiff:
    text: str  # the diff, ending with a newline (git apply wants one)
    files: tuple[FileChange, ...]
    strip: int  # the `-p` level for `git apply`: 1 for a/ b/ prefixes, else 0
    patch: Any  # the unidiff PatchSet

    @property
    def paths(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for change in self.files:
            for name in (change.source, change.target):
                if name:
                    seen[name] = None
        return tuple(seen)


def parse_diff(diff: str) -> ParsedDiff:
    """Parse and vet `diff`, or raise `BadDiff`."""
    if not isinstance(diff, str):
        raise TypeError(f"diff must be a str, not {type(diff).__name__}")
    if not diff.strip():
        raise BadDiff("the diff is empty")
    text = diff if diff.endswith("\n") else diff + "\n"
    try:
        patch = PatchSet(text)
    except UnidiffParseError as exc:
        raise BadDiff(f"the diff does not parse as a unified diff: {exc}") from None
    if len(patch) == 0:
        raise BadDiff(
            "no file changes found: expected a unified diff with `--- a/PATH`, "
            "`+++ b/PATH` headers and `@@ -l,n +l,n @@` hunks"
        )
    strip = _strip_level(patch)
    files = tuple(_vet_file(patched, strip) for patched in patch)
    return ParsedDiff(text=text, files=files, strip=strip, patch=patch)


def vet_overlay(overlay: Mapping[str, str] | None) -> dict[str, str]:
    """Check overlay paths with the diff's rules; raise `BadDiff` on a bad one."""
    if not overlay:
        return {}
    clean: dict[str, str] = {}
    for raw, content in overlay.items():
        if not isinstance(content, str):
            raise TypeError(f"overlay content for {raw!r} must be a str")
        clean[safe_relative_path(raw, what="overlay path")] = content
    return clean


def safe_relative_path(raw: str, *, what: str = "path") -> str:
    """`raw` as a normalised repo-relative POSIX path, or raise `BadDiff`."""
    name = _unquote(raw.strip())
    if not name:
        raise BadDiff(f"empty {what}")
    if _CONTROL.search(name):
        raise BadDiff(f"{what} {raw!r} contains control characters")
    if "\\" in name:
        raise BadDiff(f"{what} {raw!r} contains a backslash; use forward slashes")
    if name.startswith(("/", "~")) or _DRIVE.match(name):
        raise BadDiff(f"{what} {raw!r} is absolute: it must be relative to the repository")
    parts = [part for part in PurePosixPath(name).parts if part not in ("", ".")]
    if ".." in parts:
        raise BadDiff(f"{what} {raw!r} leaves the repository (`..`)")
    if not parts:
        raise BadDiff(f"{what} {raw!r} names the repository itself, not a file")
    if ".git" in parts:
        raise BadDiff(f"{what} {raw!r} is inside `.git`, which patches may not touch")
    return "/".join(parts)


def _strip_level(patch: Any) -> int:
    names = [
        (side, _unquote(name))
        for patched in patch
        for side, name in (("a/", patched.source_file), ("b/", patched.target_file))
        if name and _unquote(name) != DEV_NULL
    ]
    if names and all(name.startswith(side) for side, name in names):
        return 1
    return 0


def _vet_file(patched: Any, strip: int) -> FileChange:
    label = patched.path
    if patched.is_binary_file:
        raise BadDiff(f"binary patch for {label!r}: only text changes can be checked")
    if getattr(patched, "is_symlink", False) or getattr(patched, "is_submodule", False):
        raise BadDiff(f"{label!r} is a symlink or submodule: only regular files can be patched")
    source = _side(patched.source_file, strip)
    target = _side(patched.target_file, strip)
    if source is None and target is None:
        raise BadDiff(f"a file entry has neither a source nor a target path ({label!r})")
    if source is None:
        kind = "add"
    elif target is None:
        kind = "delete"
    elif source != target:
        kind = "rename"
    else:
        kind = "modify"
    if len(patched) == 0 and kind in ("modify", "add") and not patched.patch_info:
        raise BadDiff(f"no hunks for {label!r}: each changed file needs `@@ ... @@` hunks")
    return FileChange(kind=kind, source=source, target=target)


def _side(raw: str | None, strip: int) -> str | None:
    if raw is None:
        return None
    name = _unquote(raw)
    if name == DEV_NULL:
        return None
    if strip:
        name = name[2:]
    return safe_relative_path(name)


def _unquote(name: str) -> str:
    """Undo git's C-style quoting of unusual file names (`"a/caf\\303\\251.py"`)."""
    if len(name) >= 2 and name.startswith('"') and name.endswith('"'):
        inner = name[1:-1]
        try:
            return inner.encode("latin-1").decode("unicode_escape").encode("latin-1").decode()
        except (UnicodeDecodeError, UnicodeEncodeError):
            raise BadDiff(f"cannot decode the quoted file name {name}") from None
    return name
