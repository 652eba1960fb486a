"""`missed_tests`: a no-fix patch to a definition a still-failing test calls was aimed at that
test and missed; `never_applied` says apply_patch refuses it every time. The compliance
suite's L8 files, read through a real workspace."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lsp_agent.benchmarks.compliance.fixture_repo import FIXTURE_FILES
from tests.repo_samples import write
from tools.patches import (
    FilePatch,
    Miss,
    PatchResult,
    StoredPatch,
    missed_tests,
    never_applied,
)
from tools.workspace import DiskWorkspace

REPORT = FIXTURE_FILES["report.py"]
STOCK_TEST = "tests/test_report.py::test_total_stock"


@dataclass(frozen=True)
class Check:
    still_failing: tuple[str, ...] = (STOCK_TEST,)
    fixed: tuple[str, ...] = ()
    broken: tuple[str, ...] = ()


def stored(after: str, check: Check, path: str = "report.py", before: str = REPORT) -> StoredPatch:
    result = PatchResult((FilePatch(path, path, before, after),))
    return StoredPatch("p1", result.diff, result, check)


def workspace(tmp_path: Path, files: dict[str, str] | None = None) -> DiskWorkspace:
    return DiskWorkspace(write(tmp_path / "repo", files or dict(FIXTURE_FILES)))


def test_a_change_to_what_the_failing_test_calls_that_fixes_nothing_missed_it(
    tmp_path: Path,
) -> None:
    patch = stored(REPORT.replace("item.count", "item.count + 1"), Check())
    assert missed_tests(patch, workspace(tmp_path)) == [
        Miss("test_total_stock", "total_stock", True)
    ]
    assert never_applied(patch, workspace(tmp_path))


def test_a_fix_or_a_change_elsewhere_is_not_a_miss(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    wrong = REPORT.replace("item.count", "item.count + 1")
    assert missed_tests(stored(wrong, Check(still_failing=(), fixed=(STOCK_TEST,))), ws) == []
    other = REPORT + "\n\ndef per_item(items):\n    return [item.count for item in items]\n"
    assert missed_tests(stored(other, Check()), ws) == []  # the test calls no per_item
    assert not never_applied(stored(other, Check()), ws)
    docstring = REPORT.replace("The total count", "The whole count")
    assert missed_tests(stored(docstring, Check()), ws) == []  # total_stock's code is the same


def test_a_change_that_also_breaks_a_passing_test_missed_it_too(tmp_path: Path) -> None:
    """Asked to fix average(), the model renamed it to a second weighted_total(): one test
    broke, test_average failed as before, and it was applied when asked again (L6)."""
    wrong = REPORT.replace("item.count", "item.count + 1")
    broke = Check(broken=("tests/test_calc.py::test_add",))
    assert missed_tests(stored(wrong, broke), workspace(tmp_path)) == [
        Miss("test_total_stock", "total_stock", True)
    ]


def test_a_method_a_class_test_and_a_parametrized_id_are_found(tmp_path: Path) -> None:
    code = (
        "class Stock:\n    def __init__(self, n):\n        self.n = n\n\n"
        "    def total(self):\n        return self.n\n"
    )
    test = (
        "import pytest\nfrom stock import Stock\n\n\nclass TestStock:\n"
        "    @pytest.mark.parametrize('n', [1, 2])\n"
        "    def test_total(self, n):\n        assert Stock(n).total() == n\n"
    )
    ws = workspace(tmp_path, {"stock.py": code, "tests/test_stock.py": test})
    failing = Check(still_failing=("tests/test_stock.py::TestStock::test_total[1]",))
    method = stored(code.replace("return self.n", "return self.n + 0"), failing, "stock.py", code)
    assert missed_tests(method, ws) == [Miss("test_total", "total", True)]
    init = stored(code.replace("self.n = n", "self.n = n * 1"), failing, "stock.py", code)
    assert missed_tests(init, ws) == [Miss("test_total", "Stock", True)]


def test_a_changed_test_an_unknown_test_or_text_that_does_not_parse_is_no_miss(
    tmp_path: Path,
) -> None:
    ws = workspace(tmp_path)
    test = FIXTURE_FILES["tests/test_report.py"]
    in_test = stored(test.replace("== 7", "== 8"), Check(), "tests/test_report.py", test)
    assert missed_tests(in_test, ws) == []  # the tests are right: never the code asked of
    wrong = REPORT.replace("item.count", "item.count + 1")
    assert (
        missed_tests(stored(wrong, Check(still_failing=("tests/test_report.py::gone",))), ws) == []
    )
    assert (
        missed_tests(stored(wrong, Check(still_failing=("test_report::test_total_stock",))), ws)
        == []
    )
    assert missed_tests(stored(REPORT.replace("total = 0", "total = ("), Check()), ws) == []


def test_a_change_elsewhere_while_the_task_s_failing_test_fails_missed_it(tmp_path: Path) -> None:
    """Asked to fix average(), the model changed weighted_total() and had it applied (L6):
    a failing test that calls a name the task mentions is the task's."""
    calc = FIXTURE_FILES["calc.py"]
    wrong = calc.replace("zip(values, weights))", "zip(values, weights)) / len(values)")
    average = Check(still_failing=("tests/test_calc.py::test_average",))
    patch = stored(wrong, average, "calc.py", calc)
    ws = workspace(tmp_path)
    assert missed_tests(patch, ws, ["average", "calc.py"]) == [
        Miss("test_average", "average", False)
    ]
    assert missed_tests(patch, ws) == []  # a task that names nothing the test calls
    docstring = calc.replace('"""', '"""Note: ', 1)
    assert missed_tests(stored(docstring, average, "calc.py", calc), ws, ["average"]) == []


def test_a_test_file_too_deep_to_parse_is_read_as_no_test(tmp_path: Path) -> None:
    """A stranger's repository may hold a test file that Python's parser gives up on with a
    RecursionError (one expression 200,000 terms long): it names no test, it breaks nothing."""
    from lsp_agent.agent.calling_tests import calling_tests

    deep = "from report import total_stock\n\n\ndef test_total_stock():\n"
    deep += "    assert total_stock([]) == " + "1" + "+1" * 60_000 + "\n"
    files = {**FIXTURE_FILES, "tests/test_report.py": deep}
    ws = workspace(tmp_path, files)
    wrong = REPORT.replace("item.count", "item.count + 1")
    assert missed_tests(stored(wrong, Check()), ws) == []
    assert calling_tests(["total_stock"], ws, ws.list_files()) == []
    deep_code = REPORT + "\n\nX = " + "1" + "+1" * 60_000 + "\n"
    assert missed_tests(stored(deep_code, Check()), workspace(tmp_path / "b")) == []
