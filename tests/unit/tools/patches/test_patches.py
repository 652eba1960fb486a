"""Parsing and applying patches in memory: exact, tolerant, and refused."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_agent.testing.calc_repo import BROKEN_CALC_DIFF
from safety.errors import ERROR_KEYS, ErrorType
from tests.repo_samples import UNSAFE_PATHS
from tools.patches import (
    PatchError,
    PatchResult,
    apply_diff,
    apply_search_replace,
    parse_diff,
    render_unified_diff,
    search_replace,
    search_replace_diff,
)
from tools.workspace import DiskWorkspace, OverlayWorkspace

CALC = "def add(a, b):\n    return a + b\n"

EXACT = BROKEN_CALC_DIFF

LONG = "".join(f"line {n}\n" for n in range(1, 21))


def write(root: Path, rel: str, content: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8") if isinstance(content, str) else content
    path.write_bytes(data)
    return path


def only(result: PatchResult) -> tuple[str | None, str | None, list[str]]:
    assert len(result.files) == 1
    f = result.files[0]
    return f.before, f.after, list(f.adjustments)


def patch_error(diff: str, root: Path) -> PatchError:
    with pytest.raises(PatchError) as info:
        apply_diff(diff, DiskWorkspace(root))
    return info.value


# --- exact and tolerant application -------------------------------------------------


def test_exact_apply(tmp_repo: Path) -> None:
    result = apply_diff(EXACT, DiskWorkspace(tmp_repo))
    before, after, notes = only(result)
    assert before == CALC
    assert after == "def add(a, b):\n    return a - b\n"
    assert notes == []
    f = result.files[0]
    assert (f.path, f.old_path, f.change, f.base_version) == (
        "pkg/calc.py",
        "pkg/calc.py",
        "modify",
        None,
    )
    assert [(h.header, h.old_start, h.old_len, h.new_start, h.new_len) for h in f.hunks] == [
        ("@@ -1,2 +1,2 @@", 1, 2, 1, 2)
    ]
    assert result.diff.startswith("diff --git a/pkg/calc.py b/pkg/calc.py\n--- a/pkg/calc.py")
    assert result.paths == ["pkg/calc.py"]
    assert (tmp_repo / "pkg" / "calc.py").read_text() == CALC  # never touches disk


def test_offset_apply_prefers_closest_and_says_so(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", LONG)
    diff = "--- a/f.txt\n+++ b/f.txt\n@@ -2,3 +2,3 @@\n line 5\n-line 6\n+LINE 6\n line 7\n"
    _, after, notes = only(apply_diff(diff, DiskWorkspace(tmp_path)))
    assert after == LONG.replace("line 6\n", "LINE 6\n")
    assert notes == ["hunk 1 of f.txt applied 3 lines below its header (offset +3)"]


def test_offset_chooses_the_occurrence_nearest_the_header(tmp_path: Path) -> None:
    text = "x\ny\n" + "".join(f"pad {n}\n" for n in range(10)) + "x\ny\n"
    write(tmp_path, "f.txt", text)
    diff = "--- a/f.txt\n+++ b/f.txt\n@@ -12,2 +12,2 @@\n x\n-y\n+Y\n"
    _, after, notes = only(apply_diff(diff, DiskWorkspace(tmp_path)))
    assert after == text[: -len("y\n")] + "Y\n"
    assert notes == ["hunk 1 of f.txt applied 1 line below its header (offset +1)"]


def test_whitespace_insensitive_keeps_the_files_context_lines(tmp_path: Path) -> None:
    write(tmp_path, "f.py", "x  =  1\nif x:\n    y = 2   \nz = 3\n")
    diff = (
        "--- a/f.py\n+++ b/f.py\n@@ -1,4 +1,4 @@\n"
        " x = 1\n if x:\n-    y  =  2\n+    y = 20\n z = 3\n"
    )
    _, after, notes = only(apply_diff(diff, DiskWorkspace(tmp_path)))
    assert after == "x  =  1\nif x:\n    y = 20\nz = 3\n"
    assert notes == ["hunk 1 of f.py matched ignoring whitespace"]


@pytest.mark.parametrize(
    ("def_indent", "step", "note"),
    [
        ("", 4, "+4 spaces"),  # the model dropped the class's indentation
        ("        ", 4, "-4 spaces"),  # indented one level too deep
        ("  ", 2, "indent width x2"),  # 2-space indentation for a 4-space file
    ],
)
def test_whitespace_match_reindents_added_lines(
    tmp_path: Path, def_indent: str, step: int, note: str
) -> None:
    write(tmp_path, "f.py", "class A:\n    def f(self):\n        a = 1\n        return a\n")
    body = def_indent + " " * step
    diff = (
        "--- a/f.py\n+++ b/f.py\n@@ -2,3 +2,4 @@\n"
        f" {def_indent}def f(self):\n {body}a = 1\n+{body}b = 2\n {body}return a\n"
    )
    _, after, notes = only(apply_diff(diff, DiskWorkspace(tmp_path)))
    assert after == "class A:\n    def f(self):\n        a = 1\n        b = 2\n        return a\n"
    assert notes == [
        "hunk 1 of f.py matched ignoring whitespace",
        f"hunk 1 of f.py re-indented its added lines ({note})",
    ]


@pytest.mark.parametrize(
    ("header", "note"),
    [
        ("@@ -1,5 +1,9 @@", "said 5 old / 9 new lines but the body has 2 / 2; counts recomputed"),
        ("@@ -1 +1 @@", "said 1 old / 1 new lines but the body has 2 / 2; counts recomputed"),
        ("@@ -1,2 +1,2", "rewrote the malformed header '@@ -1,2 +1,2'"),
        ("@@ -1,2 +1,2@@ def add", "rewrote the malformed header"),
        ("@@", "had no line numbers in its header; it was placed by its content"),
        ("@@ ... @@", "had no line numbers in its header; it was placed by its content"),
    ],
)
def test_wrong_or_missing_hunk_counts_are_recomputed(
    tmp_repo: Path, header: str, note: str
) -> None:
    diff = EXACT.replace("@@ -1,2 +1,2 @@", header)
    _, after, notes = only(apply_diff(diff, DiskWorkspace(tmp_repo)))
    assert after == "def add(a, b):\n    return a - b\n"
    assert len(notes) == 1
    assert note in notes[0]


def test_right_counts_need_no_note_even_with_header_like_lines(tmp_path: Path) -> None:
    before = "x\n-- a\n@@ c\ny\n"
    after = "x\n++ b\n@@ c\ny\n"
    write(tmp_path, "f.txt", before)
    diff = render_unified_diff("f.txt", before, after)
    assert "\n--- a\n+++ b\n" in diff
    assert only(apply_diff(diff, DiskWorkspace(tmp_path)))[1:] == (after, [])


def test_too_large_counts_do_not_swallow_the_next_file(tmp_repo: Path) -> None:
    write(tmp_repo, "f.txt", "a\nb\n")
    diff = (
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n"
        "--- a/pkg/calc.py\n+++ b/pkg/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n"
        "-    return a + b\n+    return a - b\n"
    )
    result = apply_diff(diff, DiskWorkspace(tmp_repo))
    assert [f.path for f in result.files] == ["f.txt", "pkg/calc.py"]
    assert result.file("f.txt").after == "a\nc\n"


def test_header_like_lines_at_the_end_of_a_file_in_a_multi_file_diff(tmp_path: Path) -> None:
    write(tmp_path, "one.txt", "x\n-- a\n")
    write(tmp_path, "two.txt", "y\n")
    files = {"one.txt": ("x\n-- a\n", "x\n++ b\n"), "two.txt": ("y\n", "z\n")}
    diff = "".join(render_unified_diff(p, b, a) for p, (b, a) in files.items())
    assert "--- a\n+++ b\ndiff --git" in diff
    result = apply_diff(diff, DiskWorkspace(tmp_path))
    assert {f.path: f.after for f in result.files} == {p: a for p, (_, a) in files.items()}
    assert result.adjustments == []


def test_code_fences_unprefixed_lines_and_trailing_prose(tmp_repo: Path) -> None:
    diff = (
        "Here is the fix:\n```diff\n--- a/pkg/calc.py\n+++ b/pkg/calc.py\n@@ -1,2 +1,2 @@\n"
        "def add(a, b):\n-    return a + b\n+    return a - b\n```\nThis subtracts.\n"
    )
    _, after, notes = only(apply_diff(diff, DiskWorkspace(tmp_repo)))
    assert after == "def add(a, b):\n    return a - b\n"
    assert any("without a ' ', '-' or '+' prefix" in n for n in notes)
    assert any("ignored 1 trailing line" in n for n in notes)


def test_markdown_code_fences_inside_hunks_are_content(tmp_path: Path) -> None:
    before = "# Title\n\n```python\nx = 1\n```\n"
    after = "# Title\n\n```python\nx = 2\n```\n"
    write(tmp_path, "README.md", before)
    diff = "```diff\n" + render_unified_diff("README.md", before, after) + "```\n"
    assert only(apply_diff(diff, DiskWorkspace(tmp_path)))[1:] == (after, [])


def test_blank_context_lines_without_a_space(tmp_path: Path) -> None:
    write(tmp_path, "f.py", "a = 1\n\nb = 2\n")
    diff = "--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,3 @@\n a = 1\n\n-b = 2\n+b = 3\n"
    assert only(apply_diff(diff, DiskWorkspace(tmp_path)))[1] == "a = 1\n\nb = 3\n"


def test_multiple_hunks_and_files(tmp_repo: Path) -> None:
    write(tmp_repo, "f.txt", LONG)
    diff = (
        "--- a/f.txt\n+++ b/f.txt\n"
        "@@ -2,3 +2,3 @@\n line 2\n-line 3\n+LINE 3\n line 4\n"
        "@@ -16,3 +16,4 @@\n line 16\n line 17\n+inserted\n line 18\n"
        "--- a/pkg/calc.py\n+++ b/pkg/calc.py\n@@ -1,2 +1,3 @@\n def add(a, b):\n"
        "+    # sum\n     return a + b\n"
    )
    result = apply_diff(diff, DiskWorkspace(tmp_repo))
    assert [f.path for f in result.files] == ["f.txt", "pkg/calc.py"]
    assert result.file("f.txt").after == LONG.replace("line 3\n", "LINE 3\n").replace(
        "line 17\n", "line 17\ninserted\n"
    )
    assert result.file("pkg/calc.py").after == "def add(a, b):\n    # sum\n    return a + b\n"
    assert result.adjustments == []
    assert len(result.file("f.txt").hunks) == 2


def test_later_hunks_follow_the_drift_of_earlier_ones(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "head\nhead\n" + LONG)
    diff = (
        "--- a/f.txt\n+++ b/f.txt\n"
        "@@ -2,1 +2,1 @@\n-line 2\n+LINE 2\n"
        "@@ -10,1 +10,1 @@\n-line 10\n+LINE 10\n"
    )
    _, after, notes = only(apply_diff(diff, DiskWorkspace(tmp_path)))
    assert after == "head\nhead\n" + LONG.replace("line 2\n", "LINE 2\n").replace(
        "line 10\n", "LINE 10\n"
    )
    assert [n.split(" (")[1] for n in notes] == ["offset +2)", "offset +2)"]


def test_same_file_twice_applies_in_order(tmp_repo: Path) -> None:
    second = EXACT.replace(
        "-    return a + b\n+    return a - b\n", "-    return a - b\n+    return 0\n"
    )
    result = apply_diff(EXACT + second, DiskWorkspace(tmp_repo))
    before, after, notes = only(result)
    assert (before, after) == (CALC, "def add(a, b):\n    return 0\n")
    assert any("more than one section" in n for n in notes)


# --- create, delete, rename -----------------------------------------------------------


def test_create_file(tmp_repo: Path) -> None:
    diff = "--- /dev/null\n+++ b/pkg/new/mod.py\n@@ -0,0 +1,2 @@\n+X = 1\n+Y = 2\n"
    result = apply_diff(diff, DiskWorkspace(tmp_repo))
    f = result.files[0]
    assert (f.path, f.old_path, f.before, f.after, f.change) == (
        "pkg/new/mod.py",
        None,
        None,
        "X = 1\nY = 2\n",
        "create",
    )
    assert "new file mode 100644\n--- /dev/null\n+++ b/pkg/new/mod.py" in result.diff


def test_create_with_plain_headers_on_a_missing_file(tmp_repo: Path) -> None:
    diff = "--- a/notes.md\n+++ b/notes.md\n@@ -0,0 +1 @@\n+hello\n"
    f = apply_diff(diff, DiskWorkspace(tmp_repo)).files[0]
    assert (f.change, f.after) == ("create", "hello\n")
    assert any("applied as a new file" in n for n in f.adjustments)


def test_only_plus_lines_for_a_missing_file_is_not_a_creation(tmp_repo: Path) -> None:
    err = patch_error(
        "--- a/pkg/calcs.py\n+++ b/pkg/calcs.py\n@@ -1 +1,2 @@\n+import os\n", tmp_repo
    )
    assert err.kind == ErrorType.FILE_NOT_FOUND
    assert "pkg/calc.py" in err.message


def test_create_over_an_existing_file_is_refused(tmp_repo: Path) -> None:
    err = patch_error("--- /dev/null\n+++ b/pkg/calc.py\n@@ -0,0 +1 @@\n+x\n", tmp_repo)
    assert "already exists" in err.message
    assert "read_file" in err.recovery_suggestion


def test_create_empty_file_and_delete(tmp_repo: Path) -> None:
    write(tmp_repo, "empty.txt", "")
    diff = (
        "diff --git a/blank.txt b/blank.txt\nnew file mode 100644\n"
        "diff --git a/pkg/calc.py b/pkg/calc.py\ndeleted file mode 100644\n"
        "--- a/pkg/calc.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-def add(a, b):\n-    return a + b\n"
    )
    result = apply_diff(diff, DiskWorkspace(tmp_repo))
    assert result.file("blank.txt").after == ""
    assert result.file("blank.txt").change == "create"
    gone = result.file("pkg/calc.py")
    assert (gone.before, gone.after, gone.change) == (CALC, None, "delete")


def test_delete_listing_no_lines(tmp_repo: Path) -> None:
    diff = "diff --git a/pkg/calc.py b/pkg/calc.py\ndeleted file mode 100644\n"
    f = apply_diff(diff, DiskWorkspace(tmp_repo)).files[0]
    assert (f.change, f.after) == ("delete", None)


def test_delete_missing_file(tmp_repo: Path) -> None:
    err = patch_error("--- a/nope.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n", tmp_repo)
    assert err.kind == ErrorType.FILE_NOT_FOUND


@pytest.mark.parametrize("with_hunk", [True, False])
def test_rename(tmp_repo: Path, with_hunk: bool) -> None:
    diff = (
        "diff --git a/pkg/calc.py b/pkg/maths.py\nrename from pkg/calc.py\nrename to pkg/maths.py\n"
    )
    if with_hunk:
        diff += EXACT.replace("+++ b/pkg/calc.py", "+++ b/pkg/maths.py")
    f = apply_diff(diff, DiskWorkspace(tmp_repo)).files[0]
    assert (f.old_path, f.path, f.change, f.before) == (
        "pkg/calc.py",
        "pkg/maths.py",
        "rename",
        CALC,
    )
    assert f.after == (CALC.replace("a + b", "a - b") if with_hunk else CALC)
    assert "rename from pkg/calc.py\nrename to pkg/maths.py\n" in f.diff


def test_rename_onto_an_existing_file_is_refused(tmp_repo: Path) -> None:
    diff = (
        "diff --git a/pkg/calc.py b/tests/test_calc.py\n"
        "rename from pkg/calc.py\nrename to tests/test_calc.py\n"
    )
    assert "already exists" in patch_error(diff, tmp_repo).message


# --- line endings and unicode ---------------------------------------------------------


def test_missing_final_newline_is_kept(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "a\nb\nc")
    diff = "--- a/f.txt\n+++ b/f.txt\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n"
    _, after, notes = only(apply_diff(diff, DiskWorkspace(tmp_path)))
    assert after == "a\nb\nC"
    assert any("without a newline at its end" in n for n in notes)


def test_appending_after_a_last_line_without_newline(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "a\nb")
    diff = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n a\n b\n+c\n"
    assert only(apply_diff(diff, DiskWorkspace(tmp_path)))[1] == "a\nb\nc"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("a\nb", "a\nb\n"),  # adds the final newline
        ("a\nb\n", "a\nb"),  # removes it
        ("a\nb", "a\nB"),
        ("x", ""),
        ("", "x"),
    ],
)
def test_no_newline_markers_both_ways(tmp_path: Path, before: str, after: str) -> None:
    write(tmp_path, "f.txt", before)
    diff = render_unified_diff("f.txt", before, after)
    assert ("\\ No newline at end of file" in diff) == (
        not before.endswith("\n") or not after.endswith("\n")
    )
    assert only(apply_diff(diff, DiskWorkspace(tmp_path)))[1:] == (after, [])


def test_crlf_file_with_an_lf_diff_stays_crlf(tmp_path: Path) -> None:
    write(tmp_path, "w.txt", "one\r\ntwo\r\nthree\r\n")
    diff = "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n+two and a half\n three\n"
    _, after, notes = only(apply_diff(diff, DiskWorkspace(tmp_path)))
    assert after == "one\r\nTWO\r\ntwo and a half\r\nthree\r\n"
    assert notes == ["hunk 1 of w.txt matched ignoring line endings (the file uses CRLF)"]


def test_crlf_diff_applies_exactly(tmp_path: Path) -> None:
    before, after = "one\r\ntwo\r\n", "one\r\n2\r\n"
    write(tmp_path, "w.txt", before)
    diff = render_unified_diff("w.txt", before, after)
    assert "-two\r\n+2\r\n" in diff
    assert only(apply_diff(diff, DiskWorkspace(tmp_path)))[1:] == (after, [])


def test_whole_diff_in_crlf(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "a\nb\n")
    diff = "--- a/f.txt\r\n+++ b/f.txt\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n"
    assert only(apply_diff(diff, DiskWorkspace(tmp_path)))[1] == "a\nc\n"


def test_unicode_content_and_paths(tmp_path: Path) -> None:
    before = "# π ≈ 3.14159 😀\nnom = 'café'\n"
    write(tmp_path, "café/ünï.py", before)
    diff = (
        "--- a/café/ünï.py\n+++ b/café/ünï.py\n@@ -1,2 +1,2 @@\n"
        " # π ≈ 3.14159 😀\n-nom = 'café'\n+nom = 'crème brûlée 🍮'\n"
    )
    _, after, _ = only(apply_diff(diff, DiskWorkspace(tmp_path)))
    assert after == "# π ≈ 3.14159 😀\nnom = 'crème brûlée 🍮'\n"
    quoted = diff.replace("a/café/ünï.py", '"a/caf\\303\\251/\\303\\274n\\303\\257.py"')
    quoted = quoted.replace("b/café/ünï.py", '"b/caf\\303\\251/\\303\\274n\\303\\257.py"')
    assert only(apply_diff(quoted, DiskWorkspace(tmp_path)))[1] == after


def test_non_utf8_file_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "latin.txt", "café\n".encode("latin-1"))
    err = patch_error("--- a/latin.txt\n+++ b/latin.txt\n@@ -1 +1 @@\n-x\n+y\n", tmp_path)
    assert "not UTF-8 text" in err.message


# --- refusals ------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "kind"), UNSAFE_PATHS)
def test_unsafe_paths_are_refused(tmp_repo: Path, path: str, kind: ErrorType) -> None:
    for diff in (
        f"--- {path}\n+++ {path}\n@@ -1 +1 @@\n-a\n+b\n",
        f"--- /dev/null\n+++ {path}\n@@ -0,0 +1 @@\n+b\n",
    ):
        err = patch_error(diff, tmp_repo)
        assert err.kind == kind, err.message
        assert err.recovery_suggestion


def test_absolute_path_inside_the_workspace_is_accepted(tmp_repo: Path) -> None:
    path = (tmp_repo / "pkg" / "calc.py").resolve()
    diff = EXACT.replace("a/pkg/calc.py", str(path)).replace("b/pkg/calc.py", str(path))
    assert apply_diff(diff, DiskWorkspace(tmp_repo)).files[0].path == "pkg/calc.py"


@pytest.mark.parametrize(
    "diff",
    [
        "diff --git a/logo.png b/logo.png\nindex 1111111..2222222 100644\n"
        "Binary files a/logo.png and b/logo.png differ\n",
        "diff --git a/logo.png b/logo.png\nindex 1111111..2222222 100644\n"
        "GIT binary patch\nliteral 5\nMcmZ?wbhEHbZ~y=T\n\n",
    ],
)
def test_binary_patches_are_refused(tmp_repo: Path, diff: str) -> None:
    err = patch_error(diff, tmp_repo)
    assert err.kind == ErrorType.PATCH_INVALID
    assert "Binary" in err.message


@pytest.mark.parametrize(
    ("diff", "says"),
    [
        ("", "empty"),
        ("   \n\n", "empty"),
        ("please fix the bug in calc.py\n", "not a unified diff"),
        ("--- a/pkg/calc.py\n+++ b/pkg/calc.py\n", "no hunks"),
        ("--- a/pkg/calc.py\n+++ b/pkg/calc.py\n@@ -1,2 +1,2 @@\n", "not followed by any"),
        ("+++ b/pkg/calc.py\n@@ -1 +1 @@\n-a\n+b\n", "could not be parsed"),
        (EXACT.replace("-    return a + b\n+    return a - b", "     return a + b"), "no change"),
    ],
)
def test_garbage_is_refused_with_a_format_hint(tmp_repo: Path, diff: str, says: str) -> None:
    err = patch_error(diff, tmp_repo)
    assert err.kind == ErrorType.PATCH_INVALID
    assert says in err.message
    assert err.recovery_suggestion


def test_failure_carries_hunk_number_and_numbered_current_text(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", LONG)
    diff = (
        "--- a/f.txt\n+++ b/f.txt\n"
        "@@ -2,2 +2,2 @@\n line 2\n-line 3\n+LINE 3\n"
        "@@ -12,3 +12,3 @@\n line 12\n-line 13 (as the model remembers it)\n+LINE 13\n line 14\n"
    )
    err = patch_error(diff, tmp_path)
    assert err.kind == ErrorType.PATCH_DOES_NOT_APPLY
    assert (err.file, err.hunk) == ("f.txt", 2)
    assert err.expected == ("line 12\n", "line 13 (as the model remembers it)\n", "line 14\n")
    assert "12 | line 12\n13 | line 13\n14 | line 14\n" in err.current
    assert err.current_start == 9
    assert "lines 12-14" in err.message
    assert 'read_file(path="f.txt", start_line=9, end_line=17)' in err.recovery_suggestion
    error = err.to_error("propose_patch_unified")
    assert tuple(error) == ERROR_KEYS
    assert error["error"] == "patch_does_not_apply"
    assert error["context"]["hunk"] == 2


def test_hunks_out_of_order_are_explained(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", LONG)
    diff = (
        "--- a/f.txt\n+++ b/f.txt\n"
        "@@ -12,1 +12,1 @@\n-line 12\n+LINE 12\n"
        "@@ -2,1 +2,1 @@\n-line 2\n+LINE 2\n"
    )
    err = patch_error(diff, tmp_path)
    assert err.hunk == 2
    assert "hunks must be in file order" in err.message
    assert "2 | line 2" in err.current


def test_already_applied_hunk_is_detected(tmp_repo: Path) -> None:
    write(tmp_repo, "pkg/calc.py", "def add(a, b):\n    return a - b\n")
    err = patch_error(EXACT, tmp_repo)
    assert "already applied" in err.message


def test_missing_file_suggests_similar_paths(tmp_repo: Path) -> None:
    err = patch_error(EXACT.replace("pkg/calc.py", "pkg/calcs.py"), tmp_repo)
    assert err.kind == ErrorType.FILE_NOT_FOUND
    assert "pkg/calc.py" in err.message


# --- workspace overlay -----------------------------------------------------------------


def test_applies_to_unsaved_editor_text_and_records_version(tmp_repo: Path) -> None:
    unsaved = "def add(a, b):\n    # unsaved comment\n    return a + b\n"
    docs: Mapping[str, tuple[str, int]] = {"pkg/calc.py": (unsaved, 42)}
    ws = OverlayWorkspace(tmp_repo, lambda: docs)
    diff = (
        "--- a/pkg/calc.py\n+++ b/pkg/calc.py\n@@ -2,2 +2,2 @@\n"
        "     # unsaved comment\n-    return a + b\n+    return a * b\n"
    )
    f = apply_diff(diff, ws).files[0]
    assert (f.before, f.base_version) == (unsaved, 42)
    assert f.after == unsaved.replace("a + b", "a * b")


# --- parse_diff ---------------------------------------------------------------------


def test_parse_diff_without_workspace() -> None:
    files = parse_diff(EXACT + "--- /dev/null\n+++ b/docs/new.md\n@@ -0,0 +1 @@\n+hi\n")
    assert [(f.old_path, f.new_path, f.change) for f in files] == [
        ("pkg/calc.py", "pkg/calc.py", "modify"),
        (None, "docs/new.md", "create"),
    ]
    hunk = files[0].hunks[0]
    assert hunk.old_lines == ["def add(a, b):\n", "    return a + b\n"]
    assert hunk.new_lines == ["def add(a, b):\n", "    return a - b\n"]
    for bad in ("../x", "/abs/x", ".env", "a/../../x"):
        with pytest.raises(PatchError):
            parse_diff(f"--- {bad}\n+++ {bad}\n@@ -1 +1 @@\n-a\n+b\n")


def test_prefixless_paths_and_a_real_directory_named_a(tmp_path: Path) -> None:
    write(tmp_path, "a/x.py", "x = 1\n")
    ws = DiskWorkspace(tmp_path)
    body = "@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    assert apply_diff("--- a/x.py\n+++ a/x.py\n" + body, ws).files[0].path == "a/x.py"
    write(tmp_path, "x.py", "x = 1\n")
    assert apply_diff("--- a/x.py\n+++ b/x.py\n" + body, ws).files[0].path == "x.py"
    assert apply_diff("--- x.py\n+++ x.py\n" + body, ws).files[0].path == "x.py"
    assert apply_diff("--- a/x.py\n+++ x.py\n" + body, ws).files[0].path == "x.py"
    sloppy = "--- b/pkg/y.py\n+++ b/pkg/y.py\n" + body
    write(tmp_path, "pkg/y.py", "x = 1\n")
    assert apply_diff(sloppy, ws).files[0].path == "pkg/y.py"


# --- search / replace --------------------------------------------------------------


def test_search_replace_unique(tmp_repo: Path) -> None:
    ws = DiskWorkspace(tmp_repo)
    diff = search_replace_diff("pkg/calc.py", "a + b", "a - b", ws)
    assert isinstance(diff, str)
    _, after, notes = only(apply_diff(diff, ws))
    assert (after, notes) == ("def add(a, b):\n    return a - b\n", [])
    result = apply_search_replace("pkg/calc.py", "a + b", "a - b", ws)
    assert only(result)[1:] == (after, [])


def test_search_replace_not_found_shows_closest_lines(tmp_path: Path) -> None:
    write(tmp_path, "f.py", LONG)
    with pytest.raises(PatchError) as info:
        search_replace("f.py", "lien 13\n", "x\n", DiskWorkspace(tmp_path))
    err = info.value
    assert err.kind == ErrorType.PATCH_DOES_NOT_APPLY
    assert "not found" in err.message
    assert "13 | line 13" in err.current
    assert "line(s) 13," in err.message  # the best match first


def test_search_replace_multiple_matches(tmp_path: Path) -> None:
    write(tmp_path, "f.py", "x = 1\ny = 2\nx = 1\n")
    with pytest.raises(PatchError) as info:
        search_replace("f.py", "x = 1", "x = 3", DiskWorkspace(tmp_path))
    assert "occurs 2 times" in info.value.message
    assert "lines 1, 3" in info.value.message
    assert "more surrounding lines" in info.value.recovery_suggestion


def test_search_replace_ignoring_whitespace(tmp_path: Path) -> None:
    write(tmp_path, "f.py", "class A:\n    def f(self):\n        return  1\n")
    old = "def f(self):\n    return 1\n"
    new = "def f(self):\n    return 2\n"
    result = apply_search_replace("f.py", old, new, DiskWorkspace(tmp_path))
    _, after, notes = only(result)
    assert after == "class A:\n    def f(self):\n        return 2\n"
    assert notes == [
        "f.py: 'old' matched lines 2-3 ignoring whitespace; "
        "re-indented 'new' to the file's indentation"
    ]


def test_search_replace_ambiguous_ignoring_whitespace(tmp_path: Path) -> None:
    write(tmp_path, "f.py", "  a = 1\nb\n    a = 1\n")
    with pytest.raises(PatchError, match=r"2 times.*ignoring whitespace"):
        search_replace("f.py", "a  =  1", "a = 2", DiskWorkspace(tmp_path))


def test_search_replace_crlf_file(tmp_path: Path) -> None:
    write(tmp_path, "w.txt", "one\r\ntwo\r\nthree\r\n")
    result = apply_search_replace("w.txt", "one\ntwo\n", "one\n2\n", DiskWorkspace(tmp_path))
    _, after, notes = only(result)
    assert after == "one\r\n2\r\nthree\r\n"
    assert "CRLF" in notes[0]


def test_search_replace_new_lines_follow_a_crlf_file(tmp_path: Path) -> None:
    write(tmp_path, "w.txt", "one\r\ntwo\r\n")
    result = apply_search_replace("w.txt", "two", "2\n3", DiskWorkspace(tmp_path))
    assert only(result)[1] == "one\r\n2\r\n3\r\n"


def test_search_replace_creates_and_deletes_text(tmp_repo: Path) -> None:
    ws = DiskWorkspace(tmp_repo)
    created = apply_search_replace("pkg/util.py", "", "U = 1\n", ws).files[0]
    assert (created.change, created.before, created.after) == ("create", None, "U = 1\n")
    removed = apply_search_replace("pkg/calc.py", "    return a + b\n", "", ws).files[0]
    assert removed.after == "def add(a, b):\n"


def test_search_replace_last_line_without_newline(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "a\nb")
    _, after, _ = only(apply_search_replace("f.txt", "b", "B\nC", DiskWorkspace(tmp_path)))
    assert after == "a\nB\nC"


@pytest.mark.parametrize(
    ("path", "old", "new", "kind", "says"),
    [
        ("pkg/calc.py", "", "x", ErrorType.INVALID_ARGUMENT, "only creates a new file"),
        ("pkg/calc.py", "a + b", "a + b", ErrorType.INVALID_ARGUMENT, "identical"),
        ("pkg/nope.py", "x", "y", ErrorType.FILE_NOT_FOUND, "does not exist"),
        ("../x.py", "x", "y", ErrorType.PATH_OUTSIDE_WORKSPACE, "leave the workspace"),
        (".env", "", "SECRET=1", ErrorType.SENSITIVE_PATH, "sensitive"),
    ],
)
def test_search_replace_refusals(
    tmp_repo: Path, path: str, old: str, new: str, *, kind: ErrorType, says: str
) -> None:
    with pytest.raises(PatchError) as info:
        search_replace(path, old, new, DiskWorkspace(tmp_repo))
    assert info.value.kind == kind
    assert says in info.value.message


def test_identical_old_and_new_get_the_exact_call_to_send_instead(tmp_repo: Path) -> None:
    with pytest.raises(PatchError) as info:
        search_replace("pkg/calc.py", "a + b", "a + b", DiskWorkspace(tmp_repo))
    hint = info.value.recovery_suggestion
    assert 'propose_patch(path="pkg/calc.py", old="<the text as it is>"' in hint
    assert "another line" in hint


# --- rendering, and git agrees ----------------------------------------------------


def test_render_unified_diff_shapes() -> None:
    assert render_unified_diff("f", "same\n", "same\n") == ""
    assert render_unified_diff("f", None, "") == "diff --git a/f b/f\nnew file mode 100644\n"
    assert render_unified_diff("f", "x\n", None) == (
        "diff --git a/f b/f\ndeleted file mode 100644\n--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
    )
    assert render_unified_diff("g", "x\n", "x\n", old_path="f") == (
        "diff --git a/f b/g\nrename from f\nrename to g\n"
    )


def test_canonical_diffs_pass_git_apply_check(tmp_repo: Path) -> None:
    write(tmp_repo, "crlf.txt", "a\r\nb\r\n")
    write(tmp_repo, "nonl.txt", "x\ny")
    subprocess.run(["git", "add", "-A"], cwd=tmp_repo, check=True, capture_output=True)
    ws = DiskWorkspace(tmp_repo)
    diff = (
        EXACT
        + "--- a/crlf.txt\n+++ b/crlf.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
        + "--- a/nonl.txt\n+++ b/nonl.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+Y\n"
        + "--- /dev/null\n+++ b/new/ünï.txt\n@@ -0,0 +1 @@\n+😀\n"
        + "diff --git a/tests/test_calc.py b/tests/test_maths.py\nrename from tests/test_calc.py\n"
        + "rename to tests/test_maths.py\n"
    )
    result = apply_diff(diff, ws)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    proc = subprocess.run(
        ["git", "apply", "--check", "-v", "-"],
        cwd=tmp_repo,
        input=result.diff.encode(),
        capture_output=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    subprocess.run(
        ["git", "apply", "-"], cwd=tmp_repo, input=result.diff.encode(), check=True, env=env
    )
    for f in result.files:
        assert (tmp_repo / f.path).read_bytes() == (f.after or "").encode()


# --- property: render then apply reproduces the text exactly --------------------------


class MemoryWorkspace:
    """A Workspace over a dict (any Workspace implementation must work)."""

    def __init__(self, root: Path, files: dict[str, str]) -> None:
        self._root = root
        self.files = files

    @property
    def root(self) -> Path:
        return self._root

    def read_text(self, rel_path: str) -> str:
        if rel_path not in self.files:
            raise FileNotFoundError(rel_path)
        return self.files[rel_path]

    def exists(self, rel_path: str) -> bool:
        return rel_path in self.files

    def version(self, rel_path: str) -> int | None:
        return 1 if rel_path in self.files else None

    def list_files(self) -> list[str]:
        return sorted(self.files)

    def open_documents(self) -> Mapping[str, str]:
        return dict(self.files)


@pytest.fixture(scope="module")
def empty_root() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


def property_settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )


LINE_TEXT = st.text(alphabet=st.sampled_from(list("ab -+@\\\t\r é😀")), max_size=6)
TEXT = st.lists(LINE_TEXT, max_size=12).map("\n".join)
ANY_TEXT = st.one_of(
    TEXT, TEXT.map(lambda t: t + "\n"), TEXT.map(lambda t: t.replace("\n", "\r\n"))
)


@property_settings(300)
@given(before=st.one_of(st.none(), ANY_TEXT), after=st.one_of(st.none(), ANY_TEXT))
def test_render_then_apply_round_trips(
    empty_root: Path, before: str | None, after: str | None
) -> None:
    if before == after or (before is None and after is None):
        return
    ws = MemoryWorkspace(empty_root, {} if before is None else {"f.txt": before})
    diff = render_unified_diff("f.txt", before, after)
    f = apply_diff(diff, ws).files[0]
    assert (f.before, f.after, f.adjustments) == (before, after, ())
    assert f.diff == diff


SAFE_LINE = st.text(alphabet=st.sampled_from(list("ab x=é😀")), max_size=5)
SAFE_TEXT = st.lists(SAFE_LINE, min_size=1, max_size=15).map(lambda ls: "\n".join(ls) + "\n")


@property_settings(200)
@given(before=SAFE_TEXT, after=SAFE_TEXT, bump=st.integers(min_value=-3, max_value=7))
def test_wrong_counts_still_round_trip(
    empty_root: Path, before: str, after: str, bump: int
) -> None:
    if before == after:
        return
    diff = render_unified_diff("f.txt", before, after)
    lines = []
    for line in diff.splitlines(keepends=True):
        if not line.startswith("@@"):
            lines.append(line)
            continue
        old, new = line.split(" ")[1:3]
        start_old, start_new = old.split(",")[0], new.split(",")[0]
        lines.append(f"@@ {start_old},{max(bump, 0) + 1} {start_new},{abs(bump)} @@\n")
    f = apply_diff("".join(lines), MemoryWorkspace(empty_root, {"f.txt": before})).files[0]
    assert f.after == after


@property_settings(150)
@given(before=SAFE_TEXT, after=SAFE_TEXT)
def test_lf_diffs_apply_to_crlf_files(empty_root: Path, before: str, after: str) -> None:
    if before == after:
        return
    diff = render_unified_diff("f.txt", before, after)
    crlf = before.replace("\n", "\r\n")
    f = apply_diff(diff, MemoryWorkspace(empty_root, {"f.txt": crlf})).files[0]
    assert f.after == after.replace("\n", "\r\n")
    assert all("line endings" in note for note in f.adjustments)
