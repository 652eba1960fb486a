"""Sample diffs for the `tmp_repo` fixture's repository, a digest of a whole tree, and a
writer of sample files."""

from __future__ import annotations

import hashlib
from pathlib import Path

from lsp_agent.testing.calc_repo import BROKEN_CALC_DIFF, CALC_DIFF

__all__ = ["BROKEN_CALC_DIFF", "CALC_DIFF", "tree_digest", "write"]


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
