"""The bug-fix tasks are sound: each visible test file and hidden probe fail on the module
as shipped and pass once its one bug is fixed (the fixes live here, not in the package)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lsp_agent.benchmarks.bugfix.tasks import TASKS, BugfixTask, select_tasks
from lsp_agent.benchmarks.compliance.checks import run_probe

FIXES = {
    "freezing": ("return celsius < 0", "return celsius <= 0"),
    "discount": ("percent / 10,", "percent / 100,"),
    "pages": ("return total // per_page", "return -(-total // per_page)"),
    "initials": ("word[1]", "word[0]"),
    "grades": ("if score > 90:", "if score >= 90:"),
    "stock": ("if count > threshold", "if count < threshold"),
    "hours": ("return minutes / 24", "return minutes / 60"),
    "tail": ("len(items) - n + 1 :", "len(items) - n :"),
    "leap": ("year % 40 == 0", "year % 400 == 0"),
    "words": ("len(text.split()) + 1", "len(text.split())"),
    "series": ("sum(range(n))", "sum(range(n + 1))"),
    "vowels": ('VOWELS = "aeio"', 'VOWELS = "aeiou"'),
}


def write(task: BugfixTask, root: Path, source: str) -> Path:
    root.mkdir()
    (root / task.module).write_text(source)
    (root / task.test_file).write_text(task.tests)
    return root


def visible_tests_pass(root: Path) -> bool:
    done = subprocess.run(
        [sys.executable, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", root.name],
        cwd=root.parent,
        capture_output=True,
        # no third-party plugins: a plain run of the task's tests starts in a second, not
        # in the tens of seconds the whole environment's plugins take on a loaded machine
        env={
            "PYTHONPATH": str(root),
            "PATH": "/usr/bin:/bin",
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        },
        timeout=300,
    )
    return done.returncode == 0


def test_there_are_at_least_ten_tasks_with_a_known_fix() -> None:
    assert len(TASKS) >= 10
    assert {task.key for task in TASKS} == set(FIXES)
    assert TASKS[0].task == (
        "The tests in test_temperature.py fail. Find and fix the bug in temperature.py."
    )


@pytest.mark.parametrize("task", TASKS, ids=[t.key for t in TASKS])
def test_the_bug_fails_the_tests_and_the_fix_passes_them(task: BugfixTask, tmp_path: Path) -> None:
    old, new = FIXES[task.key]
    assert task.source.count(old) == 1
    broken = write(task, tmp_path / "broken", task.source)
    fixed = write(task, tmp_path / "fixed", task.source.replace(old, new))
    assert not visible_tests_pass(broken) and visible_tests_pass(fixed)
    assert not run_probe(broken, task.probe)[0]
    assert run_probe(fixed, task.probe) == (True, "")


def test_tasks_are_selected_by_key() -> None:
    assert [t.key for t in select_tasks(("leap", "pages"))] == ["leap", "pages"]
    with pytest.raises(ValueError, match="unknown task 'nope'"):
        select_tasks(("nope",))
