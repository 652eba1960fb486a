"""The tree digest that keys cached baselines: what changes it and what does not."""

from __future__ import annotations

import os
from pathlib import Path

from sandbox.checks.baseline import TreeDigest
from sandbox.project import SKIPPED_DIRS as COPY_EXCLUDES


def _repo(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "README.md").write_text("calc\n")
    return root


def test_same_tree_same_digest_and_a_changed_file_changes_it(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    digest = TreeDigest(root, COPY_EXCLUDES)
    first = digest.digest()
    assert digest.digest() == first
    assert TreeDigest(root, COPY_EXCLUDES).digest() == first  # no state needed
    (root / "pkg" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    assert digest.digest() != first


def test_excluded_names_do_not_count_at_any_depth(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    digest = TreeDigest(root, COPY_EXCLUDES)
    first = digest.digest()
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "pkg" / "__pycache__").mkdir()
    (root / "pkg" / "__pycache__" / "calc.cpython-311.pyc").write_bytes(b"\0")
    assert digest.digest() == first
    (root / "pkg" / "new.py").write_text("x = 1\n")
    assert digest.digest() != first


def test_a_directory_link_counts_as_a_link_not_its_content(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("one\n")
    os.symlink(outside, root / "linked")
    digest = TreeDigest(root, COPY_EXCLUDES)
    first = digest.digest()
    (outside / "secret.txt").write_text("two\n")
    assert digest.digest() == first  # the link is not followed
    os.remove(root / "linked")
    os.symlink(tmp_path, root / "linked")
    assert digest.digest() != first  # its target is part of the key


def test_an_unsaved_buffer_overlays_the_file_on_disk(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    digest = TreeDigest(root, COPY_EXCLUDES)
    on_disk = digest.digest()
    edited = digest.digest({"pkg/calc.py": "def add(a, b):\n    return 0\n"})
    assert edited != on_disk
    assert digest.digest({"pkg/calc.py": "def add(a, b):\n    return 0\n"}) == edited
