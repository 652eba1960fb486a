"""Running git for the tools: the hardened `GitRepo` and the one-line HEAD summary.

Shared by the git tools (tools/git_tools.py) and `repo_info` (tools/files/); see
tools/git_tools.py for what the hardening disables.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from safety.errors import ErrorType
from tools.base import ToolFailure
from tools.workspace import GIT_TIMEOUT_S, git_env, run_host_git

STDERR_SHOWN = 300


@dataclass(frozen=True)
class GitRepo:
    """A workspace root known to be inside a git work tree, with a hardened environment."""

    root: Path
    prefix: str
    env: dict[str, str]
    timeout_s: float

    def run(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        return run_git(self.root, args, self.env, self.timeout_s)

    def has_head(self) -> bool:
        return self.run("rev-parse", "--verify", "-q", "HEAD^{commit}").returncode == 0

    def relative(self, path: str) -> str:
        """A repository-root-relative path from git, made workspace-relative."""
        return path.removeprefix(self.prefix)


def run_git(
    root: Path, args: tuple[str, ...], env: dict[str, str], timeout_s: float
) -> subprocess.CompletedProcess[bytes]:
    """Run git in ``root``; a ToolFailure when it times out or cannot be started."""
    try:
        return run_host_git(root, args, env, timeout_s)
    except subprocess.TimeoutExpired:
        raise ToolFailure(
            ErrorType.TIMEOUT,
            f"git {args[0] if args else ''} timed out after {timeout_s:g}s.",
            "Ask for less (a path for git_diff, a smaller n for git_log) or continue without git.",
        ) from None
    except OSError as exc:
        raise ToolFailure(
            ErrorType.INTERNAL_ERROR,
            f"git could not be started ({exc}).",
            "Git is unavailable; use list_files, read_file and rg_search instead.",
        ) from None


def _stderr(proc: subprocess.CompletedProcess[bytes]) -> str:
    return proc.stderr.decode("utf-8", errors="replace").strip()[:STDERR_SHOWN]


def git_failed(proc: subprocess.CompletedProcess[bytes], what: str) -> ToolFailure:
    return ToolFailure(
        ErrorType.INTERNAL_ERROR,
        f"git {what} failed: {_stderr(proc) or f'exit status {proc.returncode}'}",
        "Continue without this git tool; read files with read_file instead.",
    )


def open_repo(root: Path, timeout_s: float = GIT_TIMEOUT_S) -> GitRepo:
    """The git repository at ``root``, or a ToolFailure saying it is not one."""
    env = git_env()
    proc = run_git(root, ("rev-parse", "--is-inside-work-tree", "--show-prefix"), env, timeout_s)
    out = proc.stdout.decode("utf-8", errors="surrogateescape").splitlines()
    if proc.returncode != 0 or not out or out[0] != "true":
        detail = _stderr(proc)
        if proc.returncode == 0 or "not a git repository" in detail.lower():
            raise ToolFailure(
                ErrorType.INVALID_ARGUMENT,
                f"The workspace {root.name!r} is not a git repository.",
                "Git tools need a git repository. Use list_files, read_file and rg_search "
                "to explore the files instead.",
            )
        raise git_failed(proc, "rev-parse")
    prefix = out[1] if len(out) > 1 else ""
    try:
        env = git_env(root, timeout_s)
    except (OSError, subprocess.TimeoutExpired):
        raise ToolFailure(
            ErrorType.TIMEOUT,
            "git config could not be read in time.",
            "Continue without git: use list_files, read_file and rg_search.",
        ) from None
    return GitRepo(root, prefix, env, timeout_s)


def repo_head_summary(root: Path, timeout_s: float = GIT_TIMEOUT_S) -> str:
    """One line for repo_info: branch and HEAD, or that this is not a git repository."""
    try:
        repo = open_repo(root, timeout_s)
    except ToolFailure:
        return "Git: not a git repository"
    branch_proc = repo.run("symbolic-ref", "--short", "-q", "HEAD")
    branch = branch_proc.stdout.decode("utf-8", errors="replace").strip()
    where = f"branch {branch}" if branch_proc.returncode == 0 and branch else "detached HEAD"
    if not repo.has_head():
        return f"Git: {where}, no commits yet"
    log = repo.run("log", "-1", "--no-show-signature", "--no-color", "--format=%h%x00%s")
    sha, _, subject = log.stdout.decode("utf-8", errors="replace").strip().partition("\0")
    return f"Git: {where}, HEAD {sha} {subject!r}"
