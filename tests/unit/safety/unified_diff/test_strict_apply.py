"""The strict in-memory applier (the sandbox's, when nothing may run) agrees with git apply."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from safety.unified_diff import PatchError, apply_to_texts, parse_strict
from tests.conftest import require_component

BASE = {"calc.py": "".join(f"line {n}\n" for n in range(1, 21))}

CASES = {
    "exact": (
        BASE,
        "--- a/calc.py\n+++ b/calc.py\n@@ -4,3 +4,3 @@\n line 4\n-line 5\n+LINE 5\n line 6\n",
    ),
    "offset": (
        BASE,
        "--- a/calc.py\n+++ b/calc.py\n@@ -9,3 +9,3 @@\n line 4\n-line 5\n+LINE 5\n line 6\n",
    ),
    "two hunks": (
        BASE,
        "--- a/calc.py\n+++ b/calc.py\n@@ -2,3 +2,4 @@\n line 2\n+new\n line 3\n line 4\n"
        "@@ -15,3 +16,2 @@\n line 15\n-line 16\n line 17\n",
    ),
    "context mismatch": (
        BASE,
        "--- a/calc.py\n+++ b/calc.py\n@@ -4,3 +4,3 @@\n line 4\n-line 50\n+LINE 5\n line 6\n",
    ),
    "no trailing context must match the end": (
        BASE,
        "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n line 1\n-line 2\n+LINE 2\n",
    ),
    "no trailing context at the end": (
        BASE,
        "--- a/calc.py\n+++ b/calc.py\n@@ -19,2 +19,2 @@\n line 19\n-line 20\n+LINE 20\n",
    ),
    "start anchored": (
        BASE,
        "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,3 @@\n+# header\n line 1\n line 2\n",
    ),
    "start anchored mismatch": (
        BASE,
        "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,3 @@\n+# header\n line 2\n line 3\n",
    ),
    "no newline at end": (
        {"a.txt": "one\ntwo"},
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n\\ No newline at end of file\n"
        "+TWO\n",
    ),
    "add newline at end": (
        {"a.txt": "one\ntwo"},
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n\\ No newline at end of file\n"
        "+two\n",
    ),
    "new file": (BASE, "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+a = 1\n+b = 2\n"),
    "new file exists": (BASE, "--- /dev/null\n+++ b/calc.py\n@@ -0,0 +1 @@\n+a = 1\n"),
    "delete file": (
        {"d.py": "x\ny\n"},
        "--- a/d.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n",
    ),
    "missing file": (BASE, "--- a/nope.py\n+++ b/nope.py\n@@ -1 +1 @@\n-a\n+b\n"),
}


def _git_apply(files: dict[str, str], diff: str, tmp: Path) -> dict[str, str] | None:
    for name, text in files.items():
        (tmp / name).write_text(text, newline="")
    proc = subprocess.run(
        ["git", "apply", "-p1", "-"],
        input=diff.encode(),
        cwd=tmp,
        capture_output=True,
        env={"GIT_CEILING_DIRECTORIES": str(tmp.parent), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    if proc.returncode != 0:
        return None
    return {p.name: p.read_bytes().decode() for p in tmp.iterdir() if p.is_file()}


def _in_memory(files: dict[str, str], diff: str) -> dict[str, str] | None:
    try:
        changes = apply_to_texts(parse_strict(diff), files.get)
    except PatchError:
        return None
    merged: dict[str, str | None] = {**files, **changes}
    return {name: text for name, text in merged.items() if text is not None}


@pytest.mark.parametrize("name", list(CASES))
def test_agrees_with_git_apply(name, tmp_path):
    require_component("git", shutil.which("git") is not None, "apt-get install git")
    files, diff = CASES[name]
    assert _in_memory(files, diff) == _git_apply(files, diff, tmp_path)


def test_failure_message_points_at_the_hunk():
    files, diff = CASES["context mismatch"]
    with pytest.raises(PatchError, match=r"hunk #1 of calc.py .* near line 4"):
        apply_to_texts(parse_strict(diff), files.get)
