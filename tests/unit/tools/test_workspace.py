"""Workspace: byte-exact reads, git/walk listing, editor overlay."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from safety.errors import ErrorType
from safety.validation import ValidationError
from tests.conftest import git_init
from tests.repo_samples import UNSAFE_PATHS
from tools.workspace import DiskWorkspace, NotTextError, OverlayWorkspace, Workspace


@pytest.mark.parametrize(
    "content",
    [
        b"a\r\nb\r\n",
        b"no final newline",
        b"mixed\r\nendings\nlone\rcr\n",
        "π = 3.14  # 😀 ünïcode\n".encode(),
        b"\xef\xbb\xbfbom\n",
        b"",
    ],
)
def test_read_text_is_byte_exact(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "f.txt").write_bytes(content)
    ws = DiskWorkspace(tmp_path)
    assert ws.read_text("f.txt").encode("utf-8") == content


def test_disk_basics(tmp_repo: Path) -> None:
    ws = DiskWorkspace(tmp_repo)
    assert isinstance(ws, Workspace)
    assert ws.root == tmp_repo.resolve()
    assert ws.exists("pkg/calc.py")
    assert ws.exists("./pkg//calc.py")
    assert not ws.exists("pkg/nope.py")
    assert not ws.exists("pkg")
    assert ws.version("pkg/calc.py") is None
    assert ws.open_documents() == {}
    assert ws.relative("pkg/../pkg/calc.py") == "pkg/calc.py"
    with pytest.raises(FileNotFoundError, match=r"pkg/nope\.py"):
        ws.read_text("pkg/nope.py")
    with pytest.raises(IsADirectoryError):
        ws.read_text("pkg")


@pytest.mark.parametrize(
    ("data", "why"),
    [(b"\x89PNG\r\n\x1a\n\x00\x00", "NUL"), ("café".encode("latin-1"), "invalid UTF-8")],
)
def test_non_text_files_raise_clearly(tmp_path: Path, data: bytes, why: str) -> None:
    (tmp_path / "blob.bin").write_bytes(data)
    with pytest.raises(NotTextError, match=why):
        DiskWorkspace(tmp_path).read_text("blob.bin")


@pytest.mark.parametrize(("path", "error"), UNSAFE_PATHS)
def test_unsafe_paths_are_refused(tmp_repo: Path, path: str, error: ErrorType) -> None:
    (tmp_repo / ".env").write_text("SECRET=1\n")
    ws = DiskWorkspace(tmp_repo)
    with pytest.raises(ValidationError) as info:
        ws.read_text(path)
    assert info.value.error_type == error


def test_root_must_be_a_directory(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a directory"):
        DiskWorkspace(tmp_path / "missing")


def test_list_files_uses_git(tmp_repo: Path) -> None:
    (tmp_repo / ".gitignore").write_text("ignored.txt\nbuild/\n")
    (tmp_repo / "ignored.txt").write_text("x")
    (tmp_repo / "build").mkdir()
    (tmp_repo / "build" / "out.py").write_text("x")
    (tmp_repo / "new file é.py").write_text("x")
    (tmp_repo / "tests" / "test_calc.py").unlink()  # tracked but deleted
    files = DiskWorkspace(tmp_repo).list_files()
    assert files == [".gitignore", "new file é.py", "pkg/__init__.py", "pkg/calc.py"]


def test_list_files_ignores_repo_configured_fsmonitor(tmp_repo: Path) -> None:
    marker = tmp_repo.parent / "fsmonitor-ran"
    hook = tmp_repo.parent / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    subprocess.run(["git", "config", "core.fsmonitor", str(hook)], cwd=tmp_repo, check=True)
    assert "pkg/calc.py" in DiskWorkspace(tmp_repo).list_files()
    assert not marker.exists()


def test_list_files_walks_without_git(tmp_path: Path) -> None:
    for rel in [
        "a.py",
        "pkg/b.py",
        ".git/HEAD",
        "node_modules/x/index.js",
        ".venv/lib/site.py",
        "pkg/__pycache__/b.cpython-311.pyc",
    ]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    assert DiskWorkspace(tmp_path).list_files() == ["a.py", "pkg/b.py"]


def test_list_files_in_a_git_subdirectory(tmp_repo: Path) -> None:
    files = DiskWorkspace(tmp_repo / "pkg").list_files()
    assert files == ["__init__.py", "calc.py"]


def test_overlay_reads_unsaved_text_and_versions(tmp_repo: Path) -> None:
    docs: dict[str, tuple[str, int]] = {
        "pkg/calc.py": ("def add(a, b):\n    return b + a  # unsaved\n", 7),
        "pkg/new.py": ("NEW = 1\n", 1),
    }
    ws = OverlayWorkspace(tmp_repo, lambda: docs)
    assert isinstance(ws, Workspace)
    assert ws.read_text("pkg/calc.py").endswith("# unsaved\n")
    assert ws.read_text("./pkg/calc.py").endswith("# unsaved\n")
    assert ws.version("pkg/calc.py") == 7
    assert ws.read_text("tests/test_calc.py").startswith("from pkg.calc")
    assert ws.version("tests/test_calc.py") is None
    assert ws.exists("pkg/new.py")
    assert not (tmp_repo / "pkg" / "new.py").exists()
    assert "pkg/new.py" in ws.list_files()
    assert "tests/test_calc.py" in ws.list_files()
    assert ws.open_documents() == {
        "pkg/calc.py": "def add(a, b):\n    return b + a  # unsaved\n",
        "pkg/new.py": "NEW = 1\n",
    }
    docs["pkg/calc.py"] = ("changed\n", 8)  # the callable is read live
    assert ws.read_text("pkg/calc.py") == "changed\n"
    assert ws.version("pkg/calc.py") == 8
    del docs["pkg/calc.py"]
    assert ws.read_text("pkg/calc.py") == "def add(a, b):\n    return a + b\n"
    with pytest.raises(ValidationError):
        ws.read_text("../outside.py")


def test_git_init_helper_is_a_repo(tmp_path: Path) -> None:
    repo = git_init(tmp_path)
    assert (repo / ".git").is_dir()
    assert os.fspath(DiskWorkspace(repo).root) == os.fspath(repo.resolve())
