"""The vendored exercises, the fixed sample and a fresh repository of an exercise."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_agent.benchmarks.edits.exercises import (
    DATA_FILE,
    changed_test_files,
    load_exercises,
    sample_order,
    select_exercises,
    write_repository,
)

BY_NAME = {exercise.name: exercise for exercise in load_exercises()}


def test_the_data_is_aiders_133_exercises_with_exercisms_licence() -> None:
    assert len(BY_NAME) == 133
    licence = (DATA_FILE.parent / "LICENSE").read_text()
    assert "MIT License" in licence and "Exercism" in licence
    for exercise in BY_NAME.values():
        assert len(exercise.solution_files) == 1, exercise.name
        assert any(name.endswith("_test.py") for name in exercise.test_files), exercise.name
        assert exercise.docs["instructions"].strip()
        assert exercise.example.strip()
    assert BY_NAME["paasio"].test_files == ("paasio_test.py", "test_utils.py")


def test_the_sample_is_fixed_and_grows_by_adding() -> None:
    order = sample_order()
    assert sorted(order) == sorted(BY_NAME)
    assert [e.name for e in select_exercises(5)] == order[:5]
    assert [e.name for e in select_exercises(20)][:5] == order[:5]
    assert [e.name for e in select_exercises()] == order[:3]
    assert [e.name for e in select_exercises(names=["two-fer", "leap"])] == ["two-fer", "leap"]
    with pytest.raises(ValueError, match="unknown exercise 'lepa'"):
        select_exercises(names=["leap", "lepa"])
    with pytest.raises(ValueError, match=r"1\.\.133"):
        select_exercises(0)


def test_a_repository_holds_the_stub_and_the_tests_but_never_the_example(tmp_path: Path) -> None:
    exercise = BY_NAME["leap"]
    repo = write_repository(exercise, tmp_path / "repo")
    files = {p.name for p in repo.iterdir() if p.name != ".git"}
    assert files == {"leap.py", "leap_test.py", ".gitignore"}
    assert exercise.example not in "".join(p.read_text() for p in repo.glob("*.py"))
    assert changed_test_files(exercise, repo) == []
    (repo / "leap_test.py").write_text("import unittest\n")
    assert changed_test_files(exercise, repo) == ["leap_test.py"]
    (repo / "leap_test.py").unlink()
    (repo / "leap_test.py").symlink_to(tmp_path / "elsewhere.py")
    (tmp_path / "elsewhere.py").write_text(exercise.files["leap_test.py"])
    assert changed_test_files(exercise, repo) == ["leap_test.py"], "a symlink is a change"
