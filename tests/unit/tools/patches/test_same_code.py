"""`same_code_note`: a patch that leaves a Python file's code as it was (only docstrings,
comments or spaces left out) is told so, with the lines of the definition it rewrote;
`idle_patch`: such a patch that fixes none of the failing tests is never applied."""

from __future__ import annotations

from lsp_agent.benchmarks.compliance.fixture_repo import FIXTURE_FILES
from tools.patches import (
    FilePatch,
    PatchResult,
    StoredPatch,
    idle_patch,
    same_code_note,
)

CALC = FIXTURE_FILES["calc.py"]  # the compliance suite's files: L6's and L8's bugs
AVERAGE = CALC[CALC.index("def average") :]
REPORT = FIXTURE_FILES["report.py"]


def note(before: str, after: str, path: str = "calc.py", failing: bool = True) -> str:
    return same_code_note("p1", PatchResult((FilePatch(path, path, before, after),)), failing)


def test_a_definition_written_again_with_its_bug_is_no_change() -> None:
    one_line = "def average(values): return sum(values) / (len(values) + 1)\n"
    told = note(CALC, CALC.replace(AVERAGE, one_line))
    assert told.startswith("p1 changes no code: average() in calc.py is the same code as before"), (
        told
    )
    assert "The wrong line is one of these: `return sum(values) / (len(values) + 1)`." in told
    assert told.endswith(
        'propose_patch(path="calc.py", old="<the wrong line>", new="<that line corrected>").'
    )


def test_the_lines_listed_are_the_code_of_the_definition_rewritten() -> None:
    kept = REPORT.replace('    """The total count over all items."""\n', "").replace(
        "    # TODO: group the totals by warehouse\n", ""
    )
    told = note(REPORT, kept, "report.py")
    assert "total_stock() in report.py" in told, told
    assert (
        "one of these: `total = 0`; `for item in items[1:]:`; `total += item.count`; "
        "`return total`." in told
    )


def test_without_failing_tests_it_only_says_that_the_code_is_the_same() -> None:
    undocumented = CALC.replace('    """The mean of a non-empty list of numbers."""\n', "")
    told = note(CALC, undocumented, failing=False)
    assert told.endswith("(it only leaves out or moves docstrings, comments or spaces)."), told


def test_a_change_of_code_docstring_or_comment_text_is_a_change() -> None:
    assert note(CALC, CALC.replace("(len(values) + 1)", "len(values)")) == ""
    assert note(CALC, CALC.replace("The mean of", "The average of")) == ""
    assert note(REPORT, REPORT.replace("# TODO: group", "# TODO: sum"), "report.py") == ""
    added = CALC.replace("    return sum(values) /", "    # by the count\n    return sum(values) /")
    assert note(CALC, added) == ""
    assert note("x = 1\n", "x = 1\n") == ""  # nothing changed at all: not this note's business
    assert note("a: 1\n", "a: 1  # same\n", "config.yaml") == ""
    assert note(CALC, CALC.replace("return sum", "return (sum")) == ""  # does not parse


def patch_with(check: object, before: str, after: str) -> StoredPatch:
    result = PatchResult((FilePatch("calc.py", "calc.py", before, after),))
    return StoredPatch("p1", result.diff, result, check)


class Check:
    def __init__(self, still_failing: tuple[str, ...], fixed: tuple[str, ...] = ()) -> None:
        self.still_failing = still_failing
        self.fixed = fixed


def test_a_patch_of_the_same_code_that_fixes_no_failing_test_is_idle() -> None:
    one_line = "def average(values): return sum(values) / (len(values) + 1)\n"
    failing = Check(("tests/test_calc.py::test_average",))
    assert idle_patch(patch_with(failing, CALC, CALC.replace(AVERAGE, one_line)))
    fixed = CALC.replace("(len(values) + 1)", "len(values)")
    assert not idle_patch(patch_with(failing, CALC, fixed))  # changes code
    undocumented = CALC.replace('    """The mean of a non-empty list of numbers."""\n', "")
    assert not idle_patch(patch_with(Check(()), CALC, undocumented))  # no test fails: a task's
    assert not idle_patch(patch_with(None, CALC, undocumented))  # no check


def test_a_test_written_again_is_told_it_changes_no_code_without_its_lines() -> None:
    """The tests are right: the way on is never to change a test's line."""
    test = 'def test_average():\n    """Checks."""\n    assert average([2, 4]) == 3\n'
    told = note(test, test.replace('    """Checks."""\n', ""), "tests/test_calc.py")
    assert told.endswith("(it only leaves out or moves docstrings, comments or spaces)."), told
