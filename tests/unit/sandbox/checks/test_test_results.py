"""Before/after test results: JUnit XML parsing, environment problems, the comparison."""

from __future__ import annotations

from sandbox.checks.test_results import (
    CheckRun,
    check_run,
    compare,
    environment_problem,
    is_pytest,
    parse_junit,
    with_report,
)
from sandbox.protocol import PatchCheck

JUNIT = """<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">
<testsuite name="pytest" errors="0" failures="1" skipped="1" tests="4">
<testcase classname="tests.test_a" name="test_a" file="tests/test_a.py" line="1" />
<testcase classname="tests.test_a.TestC" name="test_p[1]" file="tests/test_a.py" />
<testcase classname="tests.test_a.TestC" name="test_p[2]" file="tests/test_a.py">
<failure message="assert 2 == 1">boom</failure></testcase>
<testcase classname="tests.test_a.TestC" name="test_s" file="tests/test_a.py">
<skipped type="pytest.skip" message="no">skip</skipped></testcase>
</testsuite></testsuites>"""

COLLECTION_ERROR = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite>
<testcase classname="" name="tests.test_b" file="tests/test_b.py" time="0.000">
<error message="collection failure">ImportError while importing test module
E   ModuleNotFoundError: No module named 'yaml'</error></testcase></testsuite></testsuites>"""

PYTEST_IMPORT_ERROR = """
ImportError while importing test module '/tmp/work/tests/test_b.py'.
tests/test_b.py:1: in <module>
    import yaml
E   ModuleNotFoundError: No module named 'yaml'
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
"""


def run(outcomes: dict[str, bool] | None, code: int = 0, problem: str | None = None) -> CheckRun:
    return CheckRun(exit_code=code, outcomes=outcomes, problem=problem)


def test_parse_junit_names_tests_by_file_class_and_name_and_drops_skips():
    assert parse_junit(JUNIT) == {
        "tests/test_a.py::test_a": True,
        "tests/test_a.py::TestC::test_p[1]": True,
        "tests/test_a.py::TestC::test_p[2]": False,
    }


def test_parse_junit_marks_a_collection_failure_by_file():
    assert parse_junit(COLLECTION_ERROR) == {"tests/test_b.py (collection)": False}


def test_parse_junit_refuses_doctype_garbage_and_empty_reports():
    bomb = '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><testsuite>&a;</testsuite>'
    assert parse_junit(bomb) is None
    assert parse_junit("<testsuite><testcase") is None
    assert parse_junit("") is None
    assert parse_junit("<testsuites/>") == {}


def test_pytest_commands_get_a_junit_report_and_others_do_not():
    assert is_pytest(["python", "-m", "pytest", "-q"])
    assert is_pytest(["/usr/bin/python3.11", "-m", "pytest"])
    assert is_pytest(["pytest"])
    assert not is_pytest(["npm", "test"])
    assert not is_pytest(["python", "-m", "unittest"])
    assert with_report(["pytest", "-q"], "/tmp/r.xml") == [
        "pytest",
        "-q",
        "--junitxml=/tmp/r.xml",
        "-o",
        "junit_family=xunit1",
    ]
    assert with_report(["npm", "test"], "/tmp/r.xml") == ["npm", "test"]


def test_environment_problems_are_recognised():
    assert environment_problem(PYTEST_IMPORT_ERROR, 2) == "No module named 'yaml'"
    assert environment_problem("/usr/bin/python: No module named pytest", 1) == (
        "pytest is not installed in the sandbox"
    )
    assert environment_problem("cannot run 'npm': [Errno 2] No such file", 127) == (
        "npm is not installed in the sandbox image"
    )
    assert environment_problem("sh: 1: jest: not found", 127) == (
        "jest is not installed in the sandbox image"
    )
    assert environment_problem("1 failed, 2 passed", 1) is None


def test_fixed_broken_and_still_failing_by_test_id():
    before = run({"t::a": False, "t::b": False, "t::c": True}, code=1)
    after = run({"t::a": True, "t::b": False, "t::c": True, "t::new": True}, code=1)
    result = compare(before, after)
    assert (result.verdict, result.fixed, result.broken, result.still_failing) == (
        "passed",
        ("t::a",),
        (),
        ("t::b",),
    )
    broken = compare(run({"t::a": True}), run({"t::a": False, "t::new": False}, code=1))
    assert (broken.verdict, broken.broken) == ("failed", ("t::a", "t::new"))


def test_missing_module_before_and_after_cannot_run_never_failed():
    before = check_run(2, PYTEST_IMPORT_ERROR, COLLECTION_ERROR)
    after = check_run(2, PYTEST_IMPORT_ERROR, COLLECTION_ERROR)
    result = compare(before, after)
    assert result.verdict == "cannot run"
    assert "No module named 'yaml'" in result.problem
    assert "lsp-agent sandbox prepare" in result.problem


def test_import_error_the_patch_caused_is_a_failure():
    before = check_run(0, "1 passed", '<testsuite><testcase classname="t" name="a"/></testsuite>')
    after = check_run(2, PYTEST_IMPORT_ERROR, COLLECTION_ERROR)
    result = compare(before, after)
    assert (result.verdict, result.broken) == ("failed", ("tests/test_b.py (collection)",))


def test_exit_codes_alone_when_there_is_no_report():
    assert compare(run(None, 0), run(None, 0)).verdict == "passed"
    assert compare(run(None, 1), run(None, 0)).verdict == "passed"
    both = compare(run(None, 1), run(None, 1))
    assert (both.verdict, both.failing_before) == ("failed", True)
    assert compare(run(None, 0), run(None, 1)).verdict == "failed"


def test_summary_line_is_short_and_actionable():
    check = PatchCheck(
        True,
        True,
        "",
        0.1,
        backend="docker",
        check_command=("python", "-m", "pytest", "-q"),
        fixed=("tests/test_calc.py::test_add",),
        still_failing=("tests/test_io.py::test_slow",),
        failing_before=True,
    )
    assert check.summary() == (
        "applies: yes; check: passed [docker] — fixed: tests/test_calc.py::test_add; "
        "broken: none; still failing: tests/test_io.py::test_slow (failing before the patch) "
        "— python -m pytest -q"
    )
    data = check.to_dict()
    assert data["fixed"] == ("tests/test_calc.py::test_add",)
    assert data["broken"] == ()
    assert data["still_failing"] == ("tests/test_io.py::test_slow",)
    cannot = PatchCheck(True, None, "", 0.1, backend="docker", problem="No module named 'yaml'")
    assert cannot.check_status == "cannot run"
    assert cannot.summary().startswith(
        "applies: yes; check: cannot run [docker] — No module named 'yaml'"
    )
