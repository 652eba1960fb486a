"""Lexical classification of command arguments as paths (no file-system access)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from fnmatch import fnmatchcase
from pathlib import PurePosixPath
from types import MappingProxyType

from safety.braces import expand_braces
from safety.globset import GlobSet
from safety.policy.shell import UNKNOWN, Word
from safety.sensitive import SensitiveRules, git_plain_file, glob_may_match, is_shell_rc

_REMOTE = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.\-]*://[^/]*|[\w.\-]*@?[\w.\-]+:)")
_KNOWN_VARIABLES: Mapping[str, str] = MappingProxyType(
    {"HOME": "~", "PWD": ".", "OLDPWD": "/", "TMPDIR": "/tmp", "USER": "user"}
)


class PathKind(Enum):
    """Where a path argument points."""

    INSIDE = "inside"
    WORKSPACE_ROOT = "workspace root"
    OUTSIDE = "outside"
    NULL = "null device"
    DYNAMIC = "dynamic"
    REMOTE = "remote"


@dataclass(frozen=True)
class PathInfo:
    """One classified path (a word may expand to several)."""

    kind: PathKind
    shown: str
    sensitive: str | None = None
    git_internal: bool = False
    shell_rc: bool = False
    system: bool = False
    device: bool = False
    temp: bool = False
    """Strictly below a temporary directory (``/tmp/x``)."""
    temp_dir: bool = False
    """A temporary directory itself (``/tmp``): writing into it is like writing below it."""


@dataclass(frozen=True)
class PathContext:
    """What classification needs: workspace, current directory and path lists."""

    workspace: PurePosixPath | None
    cwd: str | None
    sensitive: SensitiveRules
    null_devices: GlobSet
    system_paths: tuple[str, ...]
    temp_paths: tuple[str, ...] = ()
    examples: GlobSet = field(default_factory=lambda: GlobSet(()))
    """File names that look sensitive but are templates (``.env.example``)."""


def classify(word: Word, ctx: PathContext) -> list[PathInfo]:
    """Classify ``word`` as one or more paths relative to ``ctx``."""
    value = word.with_variables(_KNOWN_VARIABLES)
    if UNKNOWN in value:
        return [_dynamic(value, ctx)]
    remote = _REMOTE.match(value)
    if remote:
        rest = value[remote.end() :]
        return [
            PathInfo(PathKind.REMOTE, value, sensitive=ctx.sensitive.match(rest) if rest else None)
        ]
    variants = expand_braces(value)
    if variants is None:
        return [PathInfo(PathKind.DYNAMIC, value)]
    return [_static(v, ctx) for v in variants]


def _dynamic(value: str, ctx: PathContext) -> PathInfo:
    prefix = value.split(UNKNOWN, 1)[0]
    head = prefix.rsplit("/", 1)[0] if "/" in prefix else prefix
    if prefix.startswith("~") or prefix == "/":
        return PathInfo(PathKind.OUTSIDE, value.replace(UNKNOWN, "$?"), system=True)
    if _below_temp(prefix, ctx) and ".." not in prefix.split("/"):
        return PathInfo(PathKind.DYNAMIC, value.replace(UNKNOWN, "$?"))
    if head and (prefix.startswith("/") or ".." in head.split("/")):
        info = _static(head or "/", ctx)
        if info.kind is PathKind.OUTSIDE:
            return PathInfo(PathKind.OUTSIDE, value.replace(UNKNOWN, "$?"), system=info.system)
    return PathInfo(PathKind.DYNAMIC, value.replace(UNKNOWN, "$?"))


def _static(value: str, ctx: PathContext) -> PathInfo:
    if value.startswith("~"):
        return _outside(value, ctx, home=True)
    if value.startswith("/"):
        norm = posixpath.normpath(value)
        if norm.startswith("//"):
            norm = "/" + norm.lstrip("/")
        if norm in ctx.null_devices:
            return PathInfo(PathKind.NULL, norm)
        ws = ctx.workspace
        if ws is not None and (norm == str(ws) or norm.startswith(str(ws).rstrip("/") + "/")):
            rel = posixpath.relpath(norm, str(ws))
            return _inside(rel, ctx)
        return _outside(norm, ctx, home=False)
    if ctx.cwd is None:
        return _outside(value, ctx, home=False, unknown_cwd=True)
    if ctx.cwd.startswith("/"):  # after cd into a temporary directory
        return _static(posixpath.join(ctx.cwd, value), ctx)
    parts = [p for p in posixpath.join(ctx.cwd, value).split("/") if p not in ("", ".")]
    depth = 0
    for part in parts:
        depth += -1 if part == ".." or _glob_dotdot(part) else 1
        if depth < 0:
            return _outside(value, ctx, home=False)
    return _inside(posixpath.normpath("/".join(parts) or "."), ctx)


def _sensitive(path: str, ctx: PathContext) -> str | None:
    if path.rstrip("/").rsplit("/", 1)[-1] in ctx.examples:
        return None
    hit = ctx.sensitive.match(path)
    if hit is None and any(c in path for c in "*?["):
        for part in path.split("/"):
            hit = glob_may_match(ctx.sensitive, part)
            if hit:
                break
    return hit


def _inside(rel: str, ctx: PathContext) -> PathInfo:
    if rel in (".", ""):
        return PathInfo(PathKind.WORKSPACE_ROOT, ".")
    lowered = [p.lower() for p in rel.split("/")]
    return PathInfo(
        PathKind.INSIDE,
        rel,
        sensitive=_sensitive(rel, ctx),
        git_internal=".git" in lowered and not git_plain_file(rel, writing=True),
        # below the top level, a start-up file's name is a fixture's (tests/home/.bashrc)
        shell_rc="/" not in rel and is_shell_rc(rel),
    )


def _outside(value: str, ctx: PathContext, *, home: bool, unknown_cwd: bool = False) -> PathInfo:
    norm = posixpath.normpath(value) if not home else value
    shown = f"{value} (after cd out of the workspace)" if unknown_cwd else norm
    system = home or unknown_cwd or _is_system(norm, ctx)
    return PathInfo(
        PathKind.OUTSIDE,
        shown,
        sensitive=_sensitive(norm, ctx),
        git_internal=".git" in norm.lower().split("/"),
        shell_rc=is_shell_rc(norm),
        system=system,
        device=norm.startswith("/dev/"),
        temp=not home and not unknown_cwd and _below_temp(norm, ctx),
        temp_dir=not home and not unknown_cwd and norm in ctx.temp_paths,
    )


def _below_temp(path: str, ctx: PathContext) -> bool:
    """True for a path strictly below a temporary directory (``/tmp/x``, not ``/tmp``)."""
    return any(
        path.startswith(temp.rstrip("/") + "/") and len(path) > len(temp.rstrip("/")) + 1
        for temp in ctx.temp_paths
    )


def _is_system(norm: str, ctx: PathContext) -> bool:
    if norm in ("/", "") or norm.startswith("~") or "*" in norm.split("/")[1:2]:
        return True
    for sys_path in ctx.system_paths:
        if norm == sys_path or norm.startswith(sys_path.rstrip("/") + "/"):
            return True
    return False


def _glob_dotdot(part: str) -> bool:
    return part.startswith(".") and any(c in part for c in "*?[") and fnmatchcase("..", part)
