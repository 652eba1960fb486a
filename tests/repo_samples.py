"""Sample diffs for the `tmp_repo` fixture's repository, a digest of a whole tree, and a
writer of sample files."""

from __future__ import annotations

import hashlib
from pathlib import Path

from lsp_agent.testing.calc_repo import BROKEN_CALC_DIFF, CALC_DIFF
from safety.errors import ErrorType

__all__ = ["BROKEN_CALC_DIFF", "CALC_DIFF", "UNSAFE_PATHS", "tree_digest", "write"]

# Paths every file tool refuses in the `tmp_repo` repository, and the error it gives
# (the whole table of `safety.validation` is its own test's).
UNSAFE_PATHS: list[tuple[str, ErrorType]] = [
    ("../x.py", ErrorType.PATH_OUTSIDE_WORKSPACE),
    ("../outside.txt", ErrorType.PATH_OUTSIDE_WORKSPACE),
    ("/etc/passwd", ErrorType.PATH_OUTSIDE_WORKSPACE),
    ("a/../../x.py", ErrorType.PATH_OUTSIDE_WORKSPACE),
    ("pkg/../../../x.py", ErrorType.PATH_OUTSIDE_WORKSPACE),
    (".env", ErrorType.SENSITIVE_PATH),
    ("pkg/../.env", ErrorType.SENSITIVE_PATH),
    ("config/.env.local", ErrorType.SENSITIVE_PATH),
    (".git/config", ErrorType.SENSITIVE_PATH),
    (".git/hooks/pre-commit", ErrorType.SENSITIVE_PATH),
    ("keys/id_rsa", ErrorType.SENSITIVE_PATH),
    ("file:///etc/passwd", ErrorType.INVALID_PATH),
]


def tree_digest(root: Path) -> str:
    """A hash of every file's path and bytes under `root`: equal digests, untouched tree."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def write(root: Path, files: dict[str, str]) -> Path:
    """Write `files` (relative path -> text) under `root`, folders made as needed; `root`."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root
