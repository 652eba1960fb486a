"""Which files of a repository the sandbox must not show, and a git config without credentials.

Secrets are the sensitive-file rules of `safety.sensitive` (`.env` variants, keys,
package-manager auth files, cloud credentials, ...), minus examples (`.env.example`,
`*.sample`, `*.template`, `*.dist`), minus certificates (a `.pem`/`.crt` is secret only
when it holds a private key). `.git` is not a secret as a whole (tests may read git
metadata); its config files are served without credentials instead.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from safety.name_variants import BACKUP_HINTS
from safety.sensitive import DEFAULT_DIRS, SensitiveRules
from safety.validation import read_regular
from sandbox.project import SKIPPED_DIRS

RULES = SensitiveRules(
    dirs=tuple(name for name in DEFAULT_DIRS if name != ".git"),
    allow=("*.example", "*.sample", "*.template", "*.dist", "*.pub"),
)
# Not walked for secrets: the project's skipped folders (vendored, generated, `.git`).
UNWALKED = SKIPPED_DIRS
_CERTIFICATE_NAMES = re.compile(r".*\.(pem|crt|cer)$", re.IGNORECASE)
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]+@")
_SECRET_KEY = re.compile(
    r"^\s*(extraheader|[\w.-]*(token|password|passwd|secret)[\w.-]*)\s*=", re.I
)
MAX_ENTRIES = 500_000


@dataclass
class RepoScan:
    """What the sandbox must hide or rewrite, and the directories (relative paths)."""

    secrets: list[str] = field(default_factory=list)
    git_configs: dict[str, str] = field(default_factory=dict)  # path -> sanitized text
    directories: list[str] = field(default_factory=list)


def scan(repo_root: Path) -> RepoScan:
    """Walk the repository once (vendored trees and `.git` not descended into)."""
    result = RepoScan()
    root = str(repo_root)
    seen = 0
    for directory, dirnames, filenames in os.walk(root):
        relative_dir = os.path.relpath(directory, root)
        prefix = "" if relative_dir == "." else relative_dir + "/"
        dirnames[:] = [name for name in dirnames if name not in UNWALKED]
        result.directories.extend(prefix + name for name in dirnames)
        hinted_dir = any(_DIR_HINT.match(part) for part in prefix.split("/") if part)
        for name in filenames:
            if not (hinted_dir or _NAME_HINT.match(name)):
                continue
            if is_secret(prefix + name, os.path.join(directory, name)):
                result.secrets.append(prefix + name)
        seen += len(filenames) + len(dirnames)
        if seen > MAX_ENTRIES:
            break
    for config in _git_configs(repo_root):
        relative = config.relative_to(repo_root).as_posix()
        try:
            text = read_regular(config).decode("utf-8", errors="replace")
        except OSError:
            continue
        clean = sanitize_git_config(text)
        if clean != text:
            result.git_configs[relative] = clean
    return result


def _glob_regex(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(fnmatch.translate(p) for p in patterns), re.IGNORECASE)


# A fast first look (one regex per file); the full rules decide only for the few it passes.
_NAME_HINT = _glob_regex(RULES.names + BACKUP_HINTS)  # .npmrc.bak, .env~ too
_DIR_HINT = _glob_regex(
    RULES.dirs + tuple(p.split("/", 1)[0] for p in RULES.paths if not p.startswith("/"))
)


def is_secret(relative: str, path: str) -> bool:
    parts = relative.split("/")
    if not _NAME_HINT.match(parts[-1]) and not any(_DIR_HINT.match(p) for p in parts[:-1]):
        return False
    if RULES.match(relative) is None:
        return False
    name = relative.rsplit("/", 1)[-1]
    return not (_CERTIFICATE_NAMES.match(name) and not _holds_private_key(path))


def sanitize_git_config(text: str) -> str:
    """`text` without URL credentials (`https://user:token@host`) or secret-valued keys."""
    kept = []
    for line in text.splitlines(keepends=True):
        if _SECRET_KEY.match(line):
            continue
        kept.append(_USERINFO.sub(r"\g<scheme>", line))
    return "".join(kept)


def _holds_private_key(path: str) -> bool:
    try:
        head = read_regular(path, 1 << 16)
    except OSError:
        return True  # unreadable here (or a named pipe): hide it rather than guess
    return b"PRIVATE KEY" in head


def _git_configs(repo_root: Path) -> Iterator[Path]:
    git_dir = repo_root / ".git"
    if not git_dir.is_dir():
        return
    if (git_dir / "config").is_file():
        yield git_dir / "config"
    modules = git_dir / "modules"
    if modules.is_dir():
        yield from (path for path in modules.rglob("config") if path.is_file())
