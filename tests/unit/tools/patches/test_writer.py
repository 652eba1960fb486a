"""DiskPatchWriter: atomic per-file writes, all-or-nothing, byte-identical rollback."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tools.patches import apply_diff
from tools.patches import writer as patch_writer
from tools.patches.model import FilePatch, PatchResult
from tools.patches.writer import DiskPatchWriter
from tools.workspace import DiskWorkspace

MULTI = """\
--- a/pkg/calc.py
+++ b/pkg/calc.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a + b
+    return a - b
--- a/tests/test_calc.py
+++ b/tests/test_calc.py
@@ -4,2 +4,2 @@
 def test_add():
-    assert add(2, 3) == 5
+    assert add(2, 3) == -1
--- /dev/null
+++ b/pkg/sub/new.py
@@ -0,0 +1 @@
+NEW = 'é😀'
diff --git a/pkg/__init__.py b/pkg/__init__.py
deleted file mode 100644
"""


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under root (except .git) with its bytes and mode."""
    out = {}
    for path in sorted(root.rglob("*")):
        if ".git" in path.relative_to(root).parts or not path.is_file():
            continue
        out[path.relative_to(root).as_posix()] = (
            path.read_bytes(),
            stat.S_IMODE(path.stat().st_mode),
        )
    return out


def dirs(root: Path) -> set[str]:
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_dir() and ".git" not in p.relative_to(root).parts
    }


def result_for(tmp_repo: Path, diff: str = MULTI) -> PatchResult:
    return apply_diff(diff, DiskWorkspace(tmp_repo))


def test_applies_modify_create_delete(tmp_repo: Path) -> None:
    (tmp_repo / "pkg" / "calc.py").chmod(0o755)
    result = result_for(tmp_repo)
    outcome = DiskPatchWriter(tmp_repo).write(result)
    assert (outcome.status, outcome.reason) == ("applied", "")
    assert outcome.files == [
        "pkg/calc.py",
        "tests/test_calc.py",
        "pkg/sub/new.py",
        "pkg/__init__.py",
    ]
    assert (tmp_repo / "pkg" / "calc.py").read_text() == "def add(a, b):\n    return a - b\n"
    assert stat.S_IMODE((tmp_repo / "pkg" / "calc.py").stat().st_mode) == 0o755
    assert (tmp_repo / "pkg" / "sub" / "new.py").read_bytes() == "NEW = 'é😀'\n".encode()
    assert not (tmp_repo / "pkg" / "__init__.py").exists()
    assert not list(tmp_repo.rglob("*.tmp"))


def test_new_files_get_the_default_mode(tmp_repo: Path) -> None:
    umask = os.umask(0o022)
    try:
        result = apply_diff(
            "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+x\n", DiskWorkspace(tmp_repo)
        )
        assert DiskPatchWriter(tmp_repo).write(result).status == "applied"
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_repo / "n.txt").stat().st_mode) == 0o644


def test_rename(tmp_repo: Path) -> None:
    diff = (
        "diff --git a/pkg/calc.py b/pkg/maths.py\nrename from pkg/calc.py\nrename to pkg/maths.py\n"
    )
    before = (tmp_repo / "pkg" / "calc.py").read_bytes()
    outcome = DiskPatchWriter(tmp_repo).write(apply_diff(diff, DiskWorkspace(tmp_repo)))
    assert outcome.status == "applied"
    assert outcome.files == ["pkg/maths.py", "pkg/calc.py"]
    assert not (tmp_repo / "pkg" / "calc.py").exists()
    assert (tmp_repo / "pkg" / "maths.py").read_bytes() == before


@pytest.mark.parametrize(
    "content",
    [b"one\r\ntwo\r\n", b"no newline", "ünï 😀\n".encode()],
)
def test_bytes_are_written_exactly(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "f.txt").write_bytes(content)
    text = content.decode()
    after = text.replace("o", "0", 1).replace("ü", "u", 1)
    result = PatchResult((FilePatch("f.txt", "f.txt", text, after),))
    assert DiskPatchWriter(tmp_path).write(result).status == "applied"
    assert (tmp_path / "f.txt").read_bytes() == after.encode()


def test_stale_file_refuses_and_writes_nothing(tmp_repo: Path) -> None:
    result = result_for(tmp_repo)
    (tmp_repo / "tests" / "test_calc.py").write_text("# the user edited this\n")
    before = snapshot(tmp_repo)
    outcome = DiskPatchWriter(tmp_repo).write(result)
    assert outcome.status == "failed"
    assert outcome.reason.startswith("stale: tests/test_calc.py changed on disk")
    assert "nothing was written" in outcome.reason
    assert snapshot(tmp_repo) == before
    assert "pkg/sub" not in dirs(tmp_repo)


def test_file_to_create_that_now_exists_is_stale(tmp_repo: Path) -> None:
    result = apply_diff("--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+x\n", DiskWorkspace(tmp_repo))
    (tmp_repo / "n.txt").write_text("someone else\n")
    outcome = DiskPatchWriter(tmp_repo).write(result)
    assert outcome.status == "failed"
    assert (tmp_repo / "n.txt").read_text() == "someone else\n"


@pytest.mark.parametrize("fail_at", [1, 2, 3])
def test_failure_midway_rolls_back_byte_identical(
    tmp_repo: Path, monkeypatch: pytest.MonkeyPatch, fail_at: int
) -> None:
    (tmp_repo / "pkg" / "calc.py").chmod(0o750)
    result = result_for(tmp_repo)
    before, before_dirs = snapshot(tmp_repo), dirs(tmp_repo)
    real_replace = os.replace
    calls = {"n": 0}

    def flaky_replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        calls["n"] += 1
        if calls["n"] == fail_at:
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(patch_writer.os, "replace", flaky_replace)
    outcome = DiskPatchWriter(tmp_repo).write(result)
    monkeypatch.undo()
    assert outcome.status == "failed"
    assert "No space left on device" in outcome.reason
    assert "rolled back, no file was changed" in outcome.reason
    assert snapshot(tmp_repo) == before
    assert dirs(tmp_repo) == before_dirs
    assert not list(tmp_repo.rglob("*.tmp"))


def test_failed_delete_rolls_back_the_writes(
    tmp_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = result_for(tmp_repo)
    before = snapshot(tmp_repo)

    def no_unlink(self: Path, missing_ok: bool = False) -> None:
        if self.name == "__init__.py":
            raise PermissionError(13, "Permission denied")
        os.unlink(self)

    monkeypatch.setattr(Path, "unlink", no_unlink)
    outcome = DiskPatchWriter(tmp_repo).write(result)
    monkeypatch.undo()
    assert outcome.status == "failed"
    assert "could not write pkg/__init__.py: Permission denied" in outcome.reason
    assert snapshot(tmp_repo) == before


def test_unsafe_paths_are_refused(tmp_repo: Path) -> None:
    result = PatchResult((FilePatch("../evil.txt", None, None, "x"),))
    outcome = DiskPatchWriter(tmp_repo).write(result)
    assert outcome.status == "failed"
    assert outcome.reason.startswith("refused:")
    assert not (tmp_repo.parent / "evil.txt").exists()
