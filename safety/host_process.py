"""Every program lsp-agent starts on this machine starts here.

A repository is untrusted, and programs look for code in their working directory and on
`PATH`: `npx` runs the project's `node_modules` copy of a package, `python -m` puts the
working directory first on `sys.path`, pip builds a requirement that names a local
directory, and a relative `PATH` entry (or one inside the repository) makes `git` the
repository's `./git`. So a child process here:

- starts in a fresh, empty directory unless the caller names one (`cwd`): the workspace
  itself only where that is the point (ripgrep searching it) and the program cannot load
  code from it;
- gets the user's start-up environment (`safety.host_env`), never what a library loaded
  into `os.environ` later, with every path list (`PATH`, `LD_LIBRARY_PATH`,
  `LD_PRELOAD`, `PYTHONPATH`, `NODE_PATH`, ...) cleaned of relative entries and of
  entries inside a workspace this process opened (`note_workspace`) or the child's cwd;
- runs a program resolved to an absolute path on that clean `PATH` before it starts.

`run` and `popen` wrap `subprocess`; `launch` gives the argv, environment and directory
for launchers that start processes themselves (the MCP SDK's `stdio_client`).
`tests/unit/safety/test_host_process.py` checks that no other module starts a host process.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from safety.host_env import user_environ

# Variables holding lists of places programs load code from.
PATH_LISTS: dict[str, str] = {
    "PATH": ":",
    "LD_LIBRARY_PATH": ":",
    "LD_PRELOAD": ": ",
    "LD_AUDIT": ":",
    "DYLD_LIBRARY_PATH": ":",
    "DYLD_INSERT_LIBRARIES": ":",
    "PYTHONPATH": ":",
    "NODE_PATH": ":",
    "PERL5LIB": ":",
    "RUBYLIB": ":",
    "GEM_PATH": ":",
}
# What a child gets when the caller asks for a minimal environment (MCP servers).
MINIMAL_KEYS = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR")

_lock = threading.Lock()
_workspaces: set[str] = set()


class ProgramNotFound(FileNotFoundError):
    """The program is not on the clean PATH (or was named by a relative path)."""


def note_workspace(root: str | os.PathLike[str]) -> None:
    """`root` is a workspace (untrusted): no child of this process finds programs in it."""
    with _lock:
        _workspaces.add(os.path.realpath(root))


def untrusted_roots(extra: Iterable[str | os.PathLike[str]] = ()) -> list[str]:
    """The directories no PATH entry may be in: the workspaces opened so far, and `extra`."""
    with _lock:
        roots = set(_workspaces)
    roots.update(os.path.realpath(path) for path in extra)
    return sorted(roots)


def _inside(path: str, roots: Iterable[str]) -> bool:
    real = os.path.realpath(path)
    return any(real == root or real.startswith(root.rstrip("/") + "/") for root in roots)


def clean_path_list(value: str, roots: Iterable[str], separators: str = ":") -> str:
    """`value` without empty, relative or untrusted entries."""
    entries = [value]
    for separator in separators:
        entries = [part for entry in entries for part in entry.split(separator)]
    roots = list(roots)
    kept = [
        entry for entry in entries if entry and os.path.isabs(entry) and not _inside(entry, roots)
    ]
    return separators[0].join(dict.fromkeys(kept))


def vetted_environ(
    *,
    extra: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    minimal: bool = False,
    untrusted: Iterable[str | os.PathLike[str]] = (),
    whole: bool = False,
) -> dict[str, str]:
    """The user's start-up environment (or its `MINIMAL_KEYS`) with every path list cleaned
    of relative entries and of entries inside a workspace or `cwd`, then `extra` laid over
    it (the caller's own choice: only relative entries are left out of its path lists).
    `whole`: `extra` is the whole environment, made by the caller from `user_environ()`,
    and cleaned as the user's."""
    base = user_environ()
    roots = untrusted_roots([*untrusted, *([cwd] if cwd is not None else [])])
    if whole:
        return _clean_lists(dict(extra or {}), roots)
    env = {k: base[k] for k in MINIMAL_KEYS if k in base} if minimal else dict(base)
    env = _clean_lists(env, roots)
    env.update(extra or {})
    return _clean_lists(env, [])


def _clean_lists(env: dict[str, str], roots: list[str]) -> dict[str, str]:
    for key, separators in PATH_LISTS.items():
        if key in env:
            cleaned = clean_path_list(env[key], roots, separators)
            if cleaned:
                env[key] = cleaned
            else:
                del env[key]
    return env


def resolve_program(program: str, env: Mapping[str, str]) -> str:
    """`program` as an absolute path found on `env`'s PATH; `ProgramNotFound` otherwise.

    A name with a `/` must be absolute (`~` expanded): a relative one would be found in
    whatever directory the child starts in. An absolute path is the caller's (the user's)
    own choice and is kept."""
    expanded = os.path.expanduser(program)
    if "/" in expanded:
        if not os.path.isabs(expanded):
            raise ProgramNotFound(
                f"{program!r} is a relative path: name the program by an absolute path or "
                "by a name found on PATH"
            )
        return expanded
    found = shutil.which(expanded, path=env.get("PATH", ""))
    if found is None:
        raise ProgramNotFound(
            f"{program!r} is not on PATH (relative PATH entries and entries inside the "
            "workspace are left out)"
        )
    return os.path.abspath(found)


@contextlib.contextmanager
def neutral_directory() -> Iterator[Path]:
    """A fresh empty directory, removed afterwards: where a child starts by default."""
    path = Path(tempfile.mkdtemp(prefix="lsp-agent-cwd-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@dataclass(frozen=True)
class Launch:
    """What to start: an absolute program and its arguments, the environment, the cwd."""

    argv: list[str]
    env: dict[str, str]
    cwd: str


def launch(
    argv: Sequence[str],
    cwd: str | os.PathLike[str],
    *,
    env: Mapping[str, str] | None = None,
    minimal: bool = False,
    whole_env: bool = False,
    untrusted: Iterable[str | os.PathLike[str]] = (),
) -> Launch:
    """The vetted argv, environment and directory for starting `argv` in `cwd`.

    `env` is laid over the user's environment (`minimal`: over its `MINIMAL_KEYS` only;
    `whole_env`: `env` is the whole environment, made from `user_environ()` by the caller)."""
    environ = vetted_environ(
        extra=env, cwd=cwd, minimal=minimal, untrusted=untrusted, whole=whole_env
    )
    program = resolve_program(str(argv[0]), environ)
    return Launch([program, *(str(arg) for arg in argv[1:])], environ, os.fspath(cwd))


def run(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    minimal: bool = False,
    whole_env: bool = False,
    untrusted: Iterable[str | os.PathLike[str]] = (),
    **kwargs: Any,
) -> subprocess.CompletedProcess[Any]:
    """`subprocess.run` of `argv`, vetted (see the module); `cwd` None: a neutral one.

    `env` is laid over the user's environment. Raises `ProgramNotFound` (a
    FileNotFoundError) when the program is not on the clean PATH."""
    options: dict[str, Any] = {"env": env, "minimal": minimal, "whole_env": whole_env}
    if cwd is not None:
        spec = launch(argv, cwd, untrusted=untrusted, **options)
        return subprocess.run(spec.argv, cwd=spec.cwd, env=spec.env, **kwargs)
    with neutral_directory() as neutral:
        spec = launch(argv, neutral, untrusted=untrusted, **options)
        return subprocess.run(spec.argv, cwd=spec.cwd, env=spec.env, **kwargs)


def popen(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
    minimal: bool = False,
    whole_env: bool = False,
    untrusted: Iterable[str | os.PathLike[str]] = (),
    **kwargs: Any,
) -> subprocess.Popen[Any]:
    """`subprocess.Popen` of `argv`, vetted; the caller names the directory (a long-lived
    child outlives a `neutral_directory()` block: keep it open for the child's life)."""
    spec = launch(argv, cwd, env=env, minimal=minimal, whole_env=whole_env, untrusted=untrusted)
    return subprocess.Popen(spec.argv, cwd=spec.cwd, env=spec.env, **kwargs)
