"""How a sandbox container sees the repository: as its owner, copy-on-write, without secrets.

*User.* The container runs as the uid:gid that owns the repository root, so it reads
exactly what the owner reads (a 0700 repository works, no chmod) and can write its
copy-on-write view of the owner's files. A root-owned repository runs as nobody
(65534): the view's directories are then taken over by nobody (copies in the upper
layer), so a patch can still create, replace and delete files.

*Trees.* Each container gets `TREES` fresh overlay mounts of the repository (Docker's
`local` volume driver with `type=overlay`: the repository is the read-only lower layer,
an empty directory under a scratch directory on this machine the upper one). A job
works in the next unused tree: nothing is copied, so a check costs the same on a
20,000-file tree as on a small one, and writes land in the upper layer, never in the
repository. The anonymous volumes go with the container.

*Secrets.* Before the mounts, each upper layer gets an empty file over every secret
file (see sandbox/docker/repo_secrets.py), so they are empty in the view. The view's `.git`
is not the repository's: its object store holds every file ever committed (a `.env` committed
once, a key in an old commit). Each tree gets its own copy-on-write view of a new repository
with HEAD's tree alone, secrets at the empty blob (sandbox/docker/git_view.py), mounted over
the tree's `.git`, so `git status` and `git diff` still work and no old object is there.

*Copy mode* (when the engine cannot mount an overlay, e.g. Docker Desktop's VM): the
repository is bind-mounted read-only at /workspace and copied per job as before; secret
files are covered by read-only binds of an empty file, `.git` by the new repository.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.docker.git_view import build_git_view, hand_over
from sandbox.docker.hardening import WORKSPACE
from sandbox.docker.repo_secrets import RepoScan, scan

logger = logging.getLogger(__name__)

NOBODY = (65534, 65534)
TREES = 8
TREE_ROOT = "/sandbox"
SCRATCH_PREFIX = "lsp-agent-view-"


def container_user(repo_root: Path) -> tuple[int, int]:
    """The repository owner's uid:gid; nobody for a root-owned repository."""
    info = os.stat(repo_root)
    if info.st_uid == 0:
        return NOBODY
    return info.st_uid, info.st_gid


def overlay_possible(repo_root: Path) -> bool:
    """Whether the path can go into overlay mount options (no `,` `:` or whitespace)."""
    return not any(char in str(repo_root) for char in ",:= \t\n")


@dataclass
class RepoView:
    """The mounts and user for one container; `close()` removes the host scratch."""

    repo_root: Path
    overlay: bool
    trees: int = TREES
    user: tuple[int, int] = NOBODY
    tree_paths: list[str] = field(default_factory=list)
    mounts: list[dict[str, Any]] = field(default_factory=list)
    binds: dict[str, dict[str, str]] = field(default_factory=dict)
    scratch: Path | None = None
    git_dir: Path | None = None  # the view's own `.git` (sandbox/docker/git_view.py)

    def close(self) -> None:
        """Remove the upper layers (after the container is gone)."""
        if self.scratch is not None:
            _remove_tree(self.scratch)
            self.scratch = None


def build_view(repo_root: Path, *, overlay: bool, trees: int = TREES) -> RepoView:
    """Scan the repository and lay out the mounts (upper layers made on this machine)."""
    repo_root = repo_root.resolve()
    view = RepoView(repo_root, overlay=overlay, trees=trees, user=container_user(repo_root))
    found = scan(repo_root)
    remove_orphans()
    view.scratch = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-"))
    os.chmod(view.scratch, 0o711)
    try:
        view.git_dir = build_git_view(repo_root, view.scratch, view.user)
        if view.git_dir is not None:
            found.git_configs.clear()  # in the repository's .git, which the view replaces
        if overlay:
            _overlay_mounts(view, found)
        else:
            _copy_binds(view, found)
    except BaseException:
        view.close()
        raise
    return view


def remove_orphans(directory: str | None = None) -> list[Path]:
    """Remove scratch directories left by processes that died (a kill -9 skips cleanup).

    Docker removes such a process's containers itself (their stdin closed); only ours
    (same uid) are touched, and only when the pid in the name no longer runs.
    """
    removed = []
    base = Path(directory or tempfile.gettempdir())
    for path in base.glob(f"{SCRATCH_PREFIX}*-*"):
        pid_text = path.name[len(SCRATCH_PREFIX) :].split("-", 1)[0]
        try:
            if not pid_text.isdigit() or path.stat().st_uid != os.geteuid():
                continue
            os.kill(int(pid_text), 0)
        except ProcessLookupError:
            _remove_tree(path)
            removed.append(path)
        except OSError:
            continue  # alive (PermissionError: another user's process) or gone already
    return removed


def _overlay_mounts(view: RepoView, found: RepoScan) -> None:
    assert view.scratch is not None
    take_over = os.stat(view.repo_root).st_uid != view.user[0]
    for index in range(view.trees):
        upper = view.scratch / f"upper-{index}"
        work = view.scratch / f"work-{index}"
        upper.mkdir()
        work.mkdir()
        _mirror_dir(view, "", upper)
        if take_over:
            for directory in found.directories:
                _mirror_dir(view, directory, upper)
        for secret in found.secrets:
            _write_file(view, upper, secret, "")
        for config, text in found.git_configs.items():
            _write_file(view, upper, config, text)
        target = f"{TREE_ROOT}/tree-{index}"
        view.tree_paths.append(target)
        view.mounts.append(_overlay(target, view.repo_root, upper, work))
        if view.git_dir is not None:  # the tree's .git: the view's repository, copy-on-write
            git_upper = view.scratch / f"git-upper-{index}"
            git_work = view.scratch / f"git-work-{index}"
            for layer in (git_upper, git_work):
                layer.mkdir()
                hand_over(layer, view.user)
            view.mounts.append(_overlay(f"{target}/.git", view.git_dir, git_upper, git_work))


def _overlay(target: str, lower: Path, upper: Path, work: Path) -> dict[str, Any]:
    """A `local` volume: an overlay of `lower` (read-only) and `upper`, mounted at `target`."""
    options = f"lowerdir={lower},upperdir={upper},workdir={work}"
    return {
        "Target": target,
        "Type": "volume",
        "ReadOnly": False,
        "VolumeOptions": {
            "DriverConfig": {
                "Name": "local",
                "Options": {"type": "overlay", "device": "overlay", "o": options},
            }
        },
    }


def _copy_binds(view: RepoView, found: RepoScan) -> None:
    assert view.scratch is not None
    view.binds[str(view.repo_root)] = {"bind": WORKSPACE, "mode": "ro"}
    if view.git_dir is not None:
        view.binds[str(view.git_dir)] = {"bind": f"{WORKSPACE}/.git", "mode": "ro"}
    covers = [(secret, "") for secret in found.secrets] + list(found.git_configs.items())
    for number, (relative, text) in enumerate(covers):
        source = view.scratch / f"cover-{number}"  # one file per bind: binds key by source
        source.write_text(text, encoding="utf-8")
        source.chmod(0o444)
        view.binds[str(source)] = {"bind": f"{WORKSPACE}/{relative}", "mode": "ro"}


def _mirror_dir(view: RepoView, relative: str, upper: Path) -> None:
    """Make `relative` (and its parents) in `upper` with the repository's modes."""
    parts = [part for part in relative.split("/") if part]
    for depth in range(len(parts) + 1):
        rel = "/".join(parts[:depth])
        dest = upper / rel if rel else upper
        if rel and dest.exists():
            continue
        source = view.repo_root / rel if rel else view.repo_root
        dest.mkdir(exist_ok=True)
        _copy_owner_and_mode(source, dest, view.user)


def _write_file(view: RepoView, upper: Path, relative: str, text: str) -> None:
    parent = relative.rsplit("/", 1)[0] if "/" in relative else ""
    _mirror_dir(view, parent, upper)
    dest = upper / relative
    dest.write_text(text, encoding="utf-8")
    _copy_owner_and_mode(view.repo_root / relative, dest, view.user)


def _copy_owner_and_mode(source: Path, dest: Path, user: tuple[int, int]) -> None:
    try:
        mode = os.stat(source).st_mode & 0o7777
    except OSError:
        mode = 0o755 if dest.is_dir() else 0o644
    if dest.is_dir():
        mode |= 0o700  # the container user owns its view's directories
    os.chmod(dest, mode)
    if os.geteuid() == 0:
        os.chown(dest, *user)


def _remove_tree(path: Path) -> None:
    def retry(_func: Any, failed: str, _exc: Any) -> None:
        try:
            os.chmod(os.path.dirname(failed), 0o700)
            if os.path.isdir(failed) and not os.path.islink(failed):
                os.chmod(failed, 0o700)
                shutil.rmtree(failed, ignore_errors=True)
            else:
                os.unlink(failed)
        except OSError as exc:
            logger.debug("cannot remove %s: %s", failed, exc)

    shutil.rmtree(path, onerror=retry)
