"""The strict tier of `safety.unified_diff` (the sandbox's): what it refuses, and why (as text)."""

from __future__ import annotations

import pytest

from lsp_agent.testing.calc_repo import CALC_DIFF
from safety.unified_diff import PatchError, parse_strict, safe_relative_path, vet_overlay

MODIFY = CALC_DIFF


def test_modify_with_git_prefixes_strips_one_level():
    parsed = parse_strict(MODIFY)
    assert parsed.strip == 1
    assert [(c.change, c.old_path, c.new_path) for c in parsed.files] == [
        ("modify", "pkg/calc.py", "pkg/calc.py")
    ]
    assert parsed.paths == ("pkg/calc.py",)


def test_plain_paths_strip_nothing():
    parsed = parse_strict(MODIFY.replace("a/pkg", "pkg").replace("b/pkg", "pkg"))
    assert parsed.strip == 0
    assert parsed.files[0].path == "pkg/calc.py"


def test_missing_final_newline_is_added():
    assert parse_strict(MODIFY.rstrip("\n")).text.endswith("\n")


def test_added_deleted_and_renamed_files():
    diff = (
        "diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n"
        "@@ -0,0 +1 @@\n+x = 1\n"
        "diff --git a/old.py b/old.py\ndeleted file mode 100644\n--- a/old.py\n+++ /dev/null\n"
        "@@ -1 +0,0 @@\n-y = 2\n"
        "diff --git a/a.py b/b.py\nsimilarity index 100%\nrename from a.py\nrename to b.py\n"
    )
    kinds = {(c.change, c.old_path, c.new_path) for c in parse_strict(diff).files}
    assert kinds == {
        ("create", None, "new.py"),
        ("delete", "old.py", None),
        ("rename", "a.py", "b.py"),
    }


@pytest.mark.parametrize(
    ("diff", "message"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("please fix the bug in calc.py", "no file changes found"),
        ("--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n-a\n+b\n", "does not parse"),
        (MODIFY.replace("a/pkg", "/etc").replace("b/pkg", "/etc"), "absolute"),
        (MODIFY.replace("a/pkg", "a/../../etc").replace("b/pkg", "b/../../etc"), "leaves"),
        (
            MODIFY.replace("a/pkg/calc.py", "a/.git/hooks/pre-commit").replace(
                "b/pkg/calc.py", "b/.git/hooks/pre-commit"
            ),
            ".git",
        ),
        (MODIFY.replace("a/pkg", "a/C:").replace("b/pkg", "b/C:"), "absolute"),
        (MODIFY.replace("a/pkg", "a/~").replace("b/pkg", "b/~"), "absolute"),
        (
            MODIFY.replace("a/pkg/calc.py", "a/pkg\\calc.py").replace(
                "b/pkg/calc.py", "b/pkg\\calc.py"
            ),
            "backslash",
        ),
        (
            "diff --git a/logo.png b/logo.png\nindex 1111111..2222222 100644\n"
            "GIT binary patch\nliteral 5\nMcmZ?wbhEHbO\n\nliteral 0\nHcmV?d00001\n",
            "binary",
        ),
        ("Binary files a/logo.png and b/logo.png differ\n", "binary"),
        (
            "diff --git a/link b/link\nnew file mode 120000\n--- /dev/null\n+++ b/link\n"
            "@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n",
            "symlink",
        ),
    ],
)
def test_bad_diffs_are_refused_with_a_reason(diff, message):
    with pytest.raises(PatchError, match=message):
        parse_strict(diff)


def test_quoted_unicode_paths_are_decoded():
    diff = MODIFY.replace("a/pkg/calc.py", '"a/caf\\303\\251.py"').replace(
        "b/pkg/calc.py", '"b/caf\\303\\251.py"'
    )
    assert parse_strict(diff).files[0].path == "café.py"


def test_non_text_input_is_a_bug():
    with pytest.raises(TypeError):
        parse_strict(b"--- a/x\n")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("pkg/calc.py", "pkg/calc.py"), ("./pkg//calc.py", "pkg/calc.py"), ("a.py", "a.py")],
)
def test_safe_relative_path_normalises(raw, expected):
    assert safe_relative_path(raw) == expected


@pytest.mark.parametrize("raw", ["", "/abs", "../x", "a/../../x", ".git/config", "a\x00b", "."])
def test_safe_relative_path_refuses(raw):
    with pytest.raises(PatchError):
        safe_relative_path(raw)


def test_overlay_paths_follow_the_same_rules():
    assert vet_overlay({"./pkg/calc.py": "x"}) == {"pkg/calc.py": "x"}
    assert vet_overlay(None) == {}
    with pytest.raises(PatchError, match="overlay path"):
        vet_overlay({"../outside.py": "x"})
