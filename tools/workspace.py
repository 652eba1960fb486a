"""The workspace the file tools read through: the disk, or the disk plus editor buffers.

Headless runs use :class:`DiskWorkspace`. The language server uses
:class:`OverlayWorkspace`, whose ``documents`` callable returns the editor's open
documents (unsaved text and document version), so tools see what the user sees.

Paths are workspace-relative POSIX strings. Every path goes through
``safety.validation.validate_path``, so reading outside the root or a sensitive file
raises ``safety.validation.ValidationError``. Text is UTF-8, read byte-exact (no newline
translation); files that are not UTF-8 text raise :class:`NotTextError`.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from safety import host_process
from safety.host_env import user_environ
from safety.validation import read_regular, validate_path
from sandbox.project import SKIPPED_DIRS, walk_files

__all__ = ["SKIPPED_DIRS", "DiskWorkspace", "NotTextError", "OverlayWorkspace", "Workspace"]

_FILTER_KEYS = ("clean", "smudge", "process")
GIT_TIMEOUT_S = 20.0

DocumentMap = Mapping[str, tuple[str, int]]
"""Open documents: workspace-relative path -> (unsaved text, editor document version)."""


class NotTextError(ValueError):
    """A file that is binary or not valid UTF-8, so tools cannot edit it as text."""

    def __init__(self, rel_path: str, why: str) -> None:
        super().__init__(f"{rel_path} is not UTF-8 text ({why}); it cannot be read or patched.")
        self.rel_path = rel_path


@runtime_checkable
class Workspace(Protocol):
    """What file tools read through."""

    @property
    def root(self) -> Path:
        """The workspace root directory."""
        ...

    def read_text(self, rel_path: str) -> str:
        """The file's current text; FileNotFoundError when missing, NotTextError if binary."""
        ...

    def exists(self, rel_path: str) -> bool:
        """True when the file exists (on disk or as an open document)."""
        ...

    def version(self, rel_path: str) -> int | None:
        """The editor document version for open documents; None for files read from disk."""
        ...

    def list_files(self) -> list[str]:
        """All workspace files (repo-relative POSIX paths, sorted)."""
        ...

    def open_documents(self) -> Mapping[str, str]:
        """Open documents: relative path -> unsaved text (empty for the disk)."""
        ...


def read_text_within(workspace: Workspace, rel_path: str, max_bytes: int) -> str:
    """`rel_path`'s text, or "" when it cannot be read as text or its file on disk is larger
    than `max_bytes` (for lookups that skim many files and skip what they cannot use)."""
    try:
        full = workspace.root / rel_path
        if full.is_file() and full.stat().st_size > max_bytes:
            return ""
        return workspace.read_text(rel_path)
    except (OSError, NotTextError, ValueError):
        return ""


def decode_text(data: bytes, rel_path: str) -> str:
    """Decode file bytes as UTF-8 exactly, or raise NotTextError."""
    if b"\x00" in data:
        raise NotTextError(rel_path, "it contains NUL bytes, so it looks binary")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotTextError(rel_path, f"invalid UTF-8 at byte {exc.start}") from exc


class DiskWorkspace:
    """The files on disk under ``root``."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        given = Path(root)
        if not given.is_dir():
            raise ValueError(f"workspace root is not a directory: {given}")
        self._root = given.resolve()
        host_process.note_workspace(self._root)  # no child process finds programs in it

    @property
    def root(self) -> Path:
        return self._root

    def resolve(self, rel_path: str) -> Path:
        """The validated absolute path (raises ValidationError for unsafe paths)."""
        return validate_path(self._root, rel_path)

    def relative(self, rel_path: str) -> str:
        """The canonical workspace-relative POSIX form of ``rel_path``."""
        return self.resolve(rel_path).relative_to(self._root).as_posix()

    def read_text(self, rel_path: str) -> str:
        path = self.resolve(rel_path)
        if path.is_dir():
            raise IsADirectoryError(f"{rel_path} is a directory, not a file")
        try:
            data = read_regular(path)  # a named pipe is refused, never waited on
        except FileNotFoundError:
            raise FileNotFoundError(f"{rel_path} does not exist") from None
        return decode_text(data, rel_path)

    def exists(self, rel_path: str) -> bool:
        return self.resolve(rel_path).is_file()

    def version(self, rel_path: str) -> int | None:
        return None

    def list_files(self) -> list[str]:
        listed = git_listed_files(self._root)
        if listed is None:
            return walk_files(self._root)
        return sorted(p for p in listed if (self._root / p).is_file())

    def open_documents(self) -> Mapping[str, str]:
        return {}


class OverlayWorkspace:
    """The disk, with the editor's open documents laid over it."""

    def __init__(self, root: str | os.PathLike[str], documents: Callable[[], DocumentMap]) -> None:
        self._disk = DiskWorkspace(root)
        self._documents = documents

    @property
    def root(self) -> Path:
        return self._disk.root

    def _open(self, rel_path: str) -> tuple[str, int] | None:
        key = self._disk.relative(rel_path)
        return self._documents().get(key)

    def read_text(self, rel_path: str) -> str:
        doc = self._open(rel_path)
        return self._disk.read_text(rel_path) if doc is None else doc[0]

    def exists(self, rel_path: str) -> bool:
        return self._open(rel_path) is not None or self._disk.exists(rel_path)

    def version(self, rel_path: str) -> int | None:
        doc = self._open(rel_path)
        return None if doc is None else doc[1]

    def list_files(self) -> list[str]:
        return sorted(set(self._disk.list_files()) | set(self._documents()))

    def open_documents(self) -> Mapping[str, str]:
        return {path: text for path, (text, _version) in self._documents().items()}


def git_command(root: Path, *args: str) -> list[str]:
    """A git argv that ignores repository-configured helpers, pagers and fsmonitor (run it
    with `safety.host_process`, which finds `git` on a clean PATH)."""
    return [
        "git",
        "--no-pager",
        "-c",
        "core.fsmonitor=false",
        "-c",
        "core.untrackedCache=false",
        "-c",
        "core.quotePath=false",
        "-C",
        str(root),
        *args,
    ]


def run_host_git(
    root: Path, args: Sequence[str], env: Mapping[str, str], timeout_s: float
) -> subprocess.CompletedProcess[bytes]:
    """`git ARGS` in ``root`` on the host, with ``env`` (see `git_env`), output captured and no
    stdin; the repository counts as untrusted. Raises OSError or subprocess.TimeoutExpired."""
    return host_process.run(
        git_command(root, *args),
        capture_output=True,
        env=env,
        whole_env=True,
        untrusted=[root],
        timeout=timeout_s,
        stdin=subprocess.DEVNULL,
    )


def git_env(root: Path | None = None, timeout_s: float = GIT_TIMEOUT_S) -> dict[str, str]:
    """The environment for git: no system config, no prompts, no redirected repository.

    With ``root``: also no hooks and every filter driver the repository configures blanked,
    so no git call on this host runs a program the repository names. Raises OSError or
    subprocess.TimeoutExpired when git cannot list the drivers (fail closed)."""
    env = {
        k: v
        for k, v in user_environ().items()
        if not k.startswith("GIT_") or k in ("GIT_CONFIG_GLOBAL", "GIT_EXEC_PATH")
    }
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_PAGER="cat",
        PAGER="cat",
        GIT_OPTIONAL_LOCKS="0",
    )
    if root is not None:
        settings = [("core.hooksPath", os.devnull)]
        for driver in sorted(_filter_drivers(root, env, timeout_s)):
            settings += [(f"filter.{driver}.{key}", "") for key in _FILTER_KEYS]
            settings.append((f"filter.{driver}.required", "false"))
        env["GIT_CONFIG_COUNT"] = str(len(settings))
        for index, (key, value) in enumerate(settings):
            env[f"GIT_CONFIG_KEY_{index}"] = key
            env[f"GIT_CONFIG_VALUE_{index}"] = value
    return env


def _filter_drivers(root: Path, env: dict[str, str], timeout_s: float) -> set[str]:
    """Names of the filter drivers configured for the repository at ``root``."""
    args = ("config", "-z", "--name-only", "--get-regexp", r"^filter\.")
    proc = run_host_git(root, args, env, timeout_s)
    drivers: set[str] = set()
    for raw in proc.stdout.split(b"\0"):
        name = raw.decode("utf-8", errors="surrogateescape")
        if name.startswith("filter.") and name.count(".") >= 2:
            drivers.add(name[len("filter.") : name.rfind(".")])
    return drivers


def git_listed_files(root: Path) -> list[str] | None:
    """``git ls-files -co --exclude-standard`` under ``root``, or None if not a git repo."""
    args = ("ls-files", "-z", "-c", "-o", "--exclude-standard")
    try:
        proc = run_host_git(root, args, git_env(root), GIT_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    names = proc.stdout.decode("utf-8", errors="surrogateescape").split("\0")
    return sorted({name for name in names if name})
