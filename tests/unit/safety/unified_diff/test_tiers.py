"""The two tiers of `safety.unified_diff` share one parser's vetting and differ on fuzz."""

from __future__ import annotations

import pytest

from safety.errors import ErrorType
from safety.unified_diff import (
    PatchError,
    apply_hunks,
    apply_to_texts,
    parse_diff,
    parse_strict,
)

TEXT = "def add(a, b):\n    return a + b\n\n\nx = 1\n"
DIFF = (
    "--- a/calc.py\n"
    "+++ b/calc.py\n"
    "@@ -1,3 +1,3 @@\n"
    " def add(a, b):\n"
    "-    return a + b\n"
    "+    return b + a\n"
    " \n"
)
EXPECTED = TEXT.replace("a + b", "b + a")


def test_both_tiers_parse_the_same_file_diff():
    tolerant = parse_diff(DIFF)
    strict = parse_strict(DIFF).files
    assert [(f.old_path, f.new_path, f.change) for f in tolerant] == [
        ("calc.py", "calc.py", "modify")
    ]
    assert [(f.old_path, f.new_path, f.change) for f in strict] == [
        ("calc.py", "calc.py", "modify")
    ]
    assert tolerant[0].hunks[0].lines == strict[0].hunks[0].lines


def test_both_tiers_apply_a_clean_diff_the_same_way():
    assert apply_hunks(TEXT, parse_diff(DIFF)[0], "calc.py") == (EXPECTED, [])
    assert apply_to_texts(parse_strict(DIFF), {"calc.py": TEXT}.get) == {"calc.py": EXPECTED}


@pytest.mark.parametrize(
    "bad",
    [
        DIFF.replace("a/calc.py", "/etc/passwd").replace("b/calc.py", "/etc/passwd"),
        DIFF.replace("a/calc.py", "a/../../x.py").replace("b/calc.py", "b/../../x.py"),
        "Binary files a/logo.png and b/logo.png differ\n",
        "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/x\n",
    ],
)
def test_both_tiers_refuse_what_must_not_be_applied(bad):
    for parse in (parse_diff, parse_strict):
        with pytest.raises(PatchError):
            parse(bad)


def test_only_the_tolerant_tier_repairs_and_reports_fuzz():
    sloppy = DIFF.replace("@@ -1,3 +1,3 @@", "@@ -1,5 +1,5 @@").replace(
        " def add(a, b):", " def add(a,   b):"
    )
    new_text, notes = apply_hunks(TEXT, parse_diff(sloppy)[0], "calc.py")
    assert new_text == EXPECTED
    assert any("counts recomputed" in note for note in parse_diff(sloppy)[0].notes)
    assert any("whitespace" in note for note in notes)
    with pytest.raises(PatchError) as caught:
        apply_to_texts(
            parse_strict(sloppy.replace("-1,5 +1,5", "-1,3 +1,3")), {"calc.py": TEXT}.get
        )
    assert caught.value.error_type == ErrorType.PATCH_DOES_NOT_APPLY
    with pytest.raises(PatchError):  # the wrong counts alone: git apply refuses too
        parse_strict(sloppy)
