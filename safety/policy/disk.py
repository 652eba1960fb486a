"""The two questions the command policy asks the file system (everything else is lexical).

- Is the directory git would run in part of another repository? An embedded bare
  repository, a nested repository with its own ``.git``, or a link out of the workspace
  brings its own configuration, and git runs the programs it names (``diff.external``,
  ``core.fsmonitor``, ``core.pager``).
- Does a file whose name a key shares (``talk.key``, ``ca.pem``) hold a secret? Its first
  bytes say: a Keynote document is a zip archive, a certificate holds no private key.

Both read only below the workspace root and only a few entries or bytes; a workspace that
is not on this machine cannot be looked at, so the answer is "ask".
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from safety.secret_redaction import contains_private_key
from safety.sensitive import SensitiveRules

_HEAD_BYTES = 1 << 16


def foreign_repository(workspace: PurePosixPath | None, directory: str) -> str | None:
    """Why git run in ``directory`` (relative to the workspace) would use another
    repository's configuration, or None when it would use the workspace's own."""
    parts = [p for p in directory.split("/") if p not in ("", ".")]
    named = next((p for p in parts if p.lower().endswith(".git")), None)
    if named is not None:
        return f"{named} is named like a bare repository"
    if workspace is None or not parts:
        return None
    root = Path(str(workspace))
    if not root.is_dir():
        return "the workspace is not on this machine, so its directories cannot be checked"
    real_root = root.resolve()
    current = root
    for part in parts:
        current = current / part
        if not current.is_dir():
            return None  # cd fails there: git does not run in it
        if current.is_symlink() and not current.resolve().is_relative_to(real_root):
            return f"{_shown(current, root)} links out of the workspace"
        reason = _repository_at(current, real_root)
        if reason:
            return f"{_shown(current, root)} {reason}"
    return None


def _repository_at(directory: Path, real_root: Path) -> str | None:
    dot_git = directory / ".git"
    if dot_git.is_dir() or dot_git.is_symlink():
        return "has its own .git directory"
    if dot_git.is_file():
        return _gitfile_problem(dot_git, real_root)
    if (directory / "HEAD").is_file() and (directory / "objects").is_dir():
        return "is a bare repository"
    return None


def _gitfile_problem(gitfile: Path, real_root: Path) -> str | None:
    """A ``.git`` file (a submodule's) must point into the workspace's own ``.git``."""
    try:
        text = gitfile.read_text("utf-8", errors="replace")[:4096]
    except OSError:
        return "has a .git file that cannot be read"
    target = text.strip().removeprefix("gitdir:").strip()
    resolved = (gitfile.parent / target).resolve()
    if target and resolved.is_relative_to(real_root / ".git"):
        return None
    return f"has a .git file pointing to {target or 'nothing'}"


def _shown(path: Path, root: Path) -> str:
    return os.path.relpath(path, root)


def cleared_by_content(
    workspace: PurePosixPath | None, relative: str, rules: SensitiveRules
) -> bool:
    """True when ``relative`` is sensitive only by a name its content can clear and the
    file in the workspace clears it (a Keynote ``talk.key``, a certificate in ``ca.pem``)."""
    if workspace is None or not rules.content_decides(relative):
        return False
    root = Path(str(workspace))
    path = root / relative
    try:
        if path.is_symlink() or not path.is_file():
            return False
        if not path.resolve().is_relative_to(root.resolve()):
            return False
        with open(path, "rb") as handle:
            head = handle.read(_HEAD_BYTES)
    except OSError:
        return False
    return rules.content_clears(relative, head) and not contains_private_key(head.decode("latin-1"))
