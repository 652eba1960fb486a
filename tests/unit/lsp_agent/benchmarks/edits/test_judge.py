"""What the judge copies for the tests, and how it reads unittest's summary (the verdicts
themselves, in the Docker sandbox: tests/e2e/test_bench_edits.py)."""

from __future__ import annotations

from pathlib import Path

from lsp_agent.benchmarks.edits.exercises import load_exercises, write_repository
from lsp_agent.benchmarks.edits.judge import copy_for_judging, count_tests

BY_NAME = {exercise.name: exercise for exercise in load_exercises()}


def test_the_judge_copies_the_tests_afresh_and_no_stdlib_shadow(tmp_path: Path) -> None:
    exercise = BY_NAME["leap"]
    repo = write_repository(exercise, tmp_path / "repo")
    (repo / "leap.py").write_text("def leap_year(year):\n    return True\n")
    (repo / "helpers.py").write_text("X = 1\n")
    (repo / "unittest.py").write_text("raise SystemExit(0)\n")  # would make every run pass
    (repo / "linked.py").symlink_to("/etc/hostname")
    clean = tmp_path / "clean"
    clean.mkdir()
    copy_for_judging(exercise, repo, clean)
    assert sorted(p.name for p in clean.iterdir()) == ["helpers.py", "leap.py", "leap_test.py"]
    assert (clean / "leap_test.py").read_text() == exercise.files["leap_test.py"]


def test_unittest_summaries_are_counted() -> None:
    assert count_tests("...\nRan 9 tests in 0.001s\n\nOK\n") == (9, 0)
    failed = "Ran 12 tests in 0.010s\n\nFAILED (failures=2, errors=1)\n"
    assert count_tests(failed) == (12, 3)
    assert count_tests("SyntaxError: invalid syntax\n") == (0, 0)
