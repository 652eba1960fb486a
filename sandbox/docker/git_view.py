"""The `.git` a sandbox container sees: HEAD's tree without its secrets, and nothing else.

The repository's own object store holds every file ever committed: a `.env` committed
once and deleted since, a key in an old commit. Hiding the working-tree file is not enough
when `git cat-file`, `git log -p` or a zlib loop can read the objects. So the container's
`.git` is a new repository, made on this machine for each view:

- HEAD's commit (same id, branch and message) as a shallow commit: no parent, no other
  commit, ref, tag or stash;
- HEAD's trees, and the blobs of its paths that are not secrets (`repo_secrets.is_secret`,
  as for the working-tree view), up to `MAX_BLOB_BYTES` each: a secret's blob is not there
  at all (`git show HEAD:.env` fails), and a larger blob is left out (`git status` still
  works for it, `git diff` of it does not);
- an index of that tree (no stat data: the first `git status` hashes the files) where each
  secret is the empty file the view shows (`git status` says it is staged as changed,
  `git diff` works), and a
  config of the repository's remotes alone, without credentials.

Made with the host's git under the hardened configuration (`safety.git_hardening`: no
hooks, no fsmonitor, no filters run) from an empty directory; the repository's config is
read by git, never run. Without git, or for a repository git cannot read, the view's
`.git` is an empty directory (fail closed): the check still works, git in the sandbox
does not.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from safety import host_process
from safety.git_hardening import hardened_git_env
from safety.host_env import user_environ
from sandbox.docker.repo_secrets import is_secret, sanitize_git_config

logger = logging.getLogger(__name__)

MAX_BLOB_BYTES = 1 << 20
KEPT_VIEWS = 16
FORMAT = "1"  # bump when a view's layout changes
GIT_TIMEOUT_S = 120.0
IDENTITY = {
    "GIT_AUTHOR_NAME": "lsp-agent",
    "GIT_AUTHOR_EMAIL": "sandbox@lsp-agent.invalid",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
    "GIT_COMMITTER_NAME": "lsp-agent",
    "GIT_COMMITTER_EMAIL": "sandbox@lsp-agent.invalid",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
}


class GitViewError(Exception):
    """Git could not make the view's repository."""


def _env() -> dict[str, str]:
    base = {k: v for k, v in user_environ().items() if not k.startswith("GIT_")}
    env = hardened_git_env({**base, "GIT_CONFIG_GLOBAL": os.devnull, **IDENTITY})
    env.pop("GIT_DIR", None)
    return env


def _git(git_dir: Path, *args: str, stdin: bytes | None = None) -> bytes:
    proc = host_process.run(
        ["git", f"--git-dir={git_dir}", *args],
        env=_env(),
        whole_env=True,
        input=stdin,
        capture_output=True,
        timeout=GIT_TIMEOUT_S,
    )
    if proc.returncode != 0:
        detail = proc.stderr.decode("utf-8", "replace").strip()[-300:]
        raise GitViewError(f"git {args[0]} failed: {detail}")
    return bytes(proc.stdout)


def build_git_view(repo_root: Path, scratch: Path, user: tuple[int, int]) -> Path | None:
    """The view's `.git` for `repo_root`, owned by the container's `user` (see the module);
    None when the repository has no `.git` directory. Kept in `cache_dir()` by HEAD, its
    secrets and remotes (a view is a read-only lower layer: every container shares it).
    When git cannot make it, an empty directory in `scratch` (fail closed: the view then
    has no repository, never the repository's own store)."""
    source = repo_root / ".git"
    if not source.is_dir() or source.is_symlink():
        return None
    try:
        plan = _plan(repo_root, source, user)
        return _cached(plan, user) or _built(plan, scratch / "git-view", user)
    except (GitViewError, OSError, subprocess.TimeoutExpired) as exc:
        logger.warning("sandbox: the view has no git repository (%s)", exc)
        empty = scratch / "git-view-empty" / ".git"
        empty.mkdir(parents=True)
        return empty


def cache_dir() -> Path:
    """Where views are kept: `$XDG_CACHE_HOME/lsp-agent/git-views` (or ~/.cache/...)."""
    env = user_environ()
    base = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or Path.home(), ".cache")
    return Path(base) / "lsp-agent" / "git-views"


@dataclass(frozen=True)
class _Plan:
    source: Path
    branch: str  # "refs/heads/NAME", or "" for a detached HEAD
    head: str  # "" before the first commit
    objects: list[str]
    secrets: list[tuple[str, bytes]]
    remotes: list[tuple[str, str]]
    key: str


def _plan(repo_root: Path, source: Path, user: tuple[int, int]) -> _Plan:
    branch = ""
    with contextlib.suppress(GitViewError):  # a detached HEAD has no branch
        branch = _git(source, "symbolic-ref", "-q", "HEAD").decode().strip()
    head = ""
    with contextlib.suppress(GitViewError):  # no commits yet
        head = _git(source, "rev-parse", "-q", "--verify", "HEAD^{commit}").decode().strip()
    objects, secrets = _tree_objects(repo_root, source) if head else ([], [])
    remotes = _remotes(source)
    digest = hashlib.sha256(f"{FORMAT}\0{repo_root}\0{user}\0{branch}\0{head}".encode())
    for _mode, path in secrets:
        digest.update(b"\0" + path)
    for key, value in remotes:
        digest.update(f"\0{key}={value}".encode())
    return _Plan(source, branch, head, objects, secrets, remotes, digest.hexdigest()[:24])


def _cached(plan: _Plan, user: tuple[int, int]) -> Path | None:
    """The kept view of `plan`, made now if missing (None when views cannot be kept)."""
    root = cache_dir()
    if any(char in str(root) for char in ",:= \t\n"):  # not in overlay mount options
        return None
    target = root / plan.key / ".git"
    if target.is_dir():
        os.utime(target.parent)  # recently used: kept
        return target
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    staging = Path(tempfile.mkdtemp(prefix=f".{plan.key}-", dir=root))
    try:
        _built(plan, staging, user)
        with contextlib.suppress(OSError):  # another process kept the same view first
            staging.rename(target.parent)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    _forget_old(root)
    return target if target.is_dir() else None


def _forget_old(root: Path) -> None:
    """Keep the `KEPT_VIEWS` most recently used views, and any used in the last hour (a
    running container may have it mounted)."""
    views = sorted(
        (path for path in root.iterdir() if not path.name.startswith(".")),
        key=lambda path: path.stat().st_mtime,
        reverse=True,
    )
    cutoff = time.time() - 3600
    for old in views[KEPT_VIEWS:]:
        if old.stat().st_mtime < cutoff:
            shutil.rmtree(old, ignore_errors=True)


def _built(plan: _Plan, directory: Path, user: tuple[int, int]) -> Path:
    """Make the view's repository at `directory/.git`, owned by `user`."""
    target = directory / ".git"
    name = plan.branch.removeprefix("refs/heads/") or "main"
    proc = host_process.run(
        ["git", "init", "-q", f"--initial-branch={name}", str(directory)],
        env=_env(),
        whole_env=True,
        capture_output=True,
        timeout=GIT_TIMEOUT_S,
    )
    if proc.returncode != 0:
        raise GitViewError(f"git init failed: {proc.stderr.decode('utf-8', 'replace')[-300:]}")
    for key, value in plan.remotes:
        _git(target, "config", "--add", key, value)
    if plan.head:
        _fill(plan, target)
    hand_over(directory, user)
    return target


def _fill(plan: _Plan, target: Path) -> None:
    """HEAD's commit (shallow), its objects and an index for the view at `target`."""
    objects = "\n".join([plan.head, *plan.objects]).encode()
    pack = _git(plan.source, "pack-objects", "--stdout", "-q", stdin=objects)
    _git(target, "index-pack", "--stdin", stdin=pack)
    (target / "shallow").write_text(plan.head + "\n", encoding="ascii")  # no parents here
    if plan.branch.startswith("refs/heads/"):
        _git(target, "update-ref", plan.branch, plan.head)
    else:
        _git(target, "update-ref", "--no-deref", "HEAD", plan.head)
    _git(target, "read-tree", plan.head)  # the index (no stat data: `git status` hashes once)
    if plan.secrets:  # staged as the empty files the view shows: `git diff` works, reads nothing
        empty = _git(target, "hash-object", "-w", "--stdin", stdin=b"").decode().strip()
        lines = [f"{mode} {empty}\t".encode() + path + b"\0" for mode, path in plan.secrets]
        _git(target, "update-index", "-z", "--index-info", stdin=b"".join(lines))


def hand_over(path: Path, user: tuple[int, int]) -> None:
    """Make `path` (and all in it) the container user's (when we may: as root)."""
    if os.geteuid() != 0:
        return
    for directory, dirnames, filenames in os.walk(path):
        for name in (".", *dirnames, *filenames):
            os.lchown(os.path.join(directory, name), *user)


def _remotes(source: Path) -> list[tuple[str, str]]:
    """The repository's `remote.*` settings, credentials taken out of the URLs."""
    try:
        listed = _git(source, "config", "-z", "--get-regexp", r"^remote\.")
    except GitViewError:
        return []  # no remotes
    kept = []
    for entry in listed.split(b"\0"):
        key, _, value = entry.decode("utf-8", "replace").partition("\n")
        if key and value and not key.endswith((".pushurl", ".proxy", ".receivepack")):
            clean = sanitize_git_config(value).strip()
            if clean:
                kept.append((key, clean))
    return kept


def _tree_objects(repo_root: Path, source: Path) -> tuple[list[str], list[tuple[str, bytes]]]:
    """HEAD's trees and the blobs of its paths that are not secrets (up to the size cap);
    the secrets' (mode, path)."""
    listing = _git(source, "ls-tree", "-r", "-t", "-l", "-z", "--full-tree", "HEAD")
    root = str(repo_root)
    objects: set[str] = set()
    secrets: list[tuple[str, bytes]] = []
    for raw in listing.split(b"\0"):
        if not raw:
            continue
        meta, _, path_bytes = raw.partition(b"\t")
        mode, kind, sha, size = meta.decode().split()
        path = path_bytes.decode("utf-8", "surrogateescape")
        if kind == "tree":
            objects.add(sha)
        elif kind == "blob" and is_secret(path, os.path.join(root, path)):
            secrets.append((mode, path_bytes))
        elif kind == "blob" and size.isdigit() and int(size) <= MAX_BLOB_BYTES:
            objects.add(sha)
    # (the root tree is the commit's own: rev-parse it in, ls-tree lists only subtrees)
    objects.add(_git(source, "rev-parse", "HEAD^{tree}").decode().strip())
    return sorted(objects), secrets
