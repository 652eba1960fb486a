"""The Exercism Python practice exercises, shipped as data, and fresh repositories of them.

`data/exercism-python.json` holds aider's 133 exercises (see data/README.md): for each, the
instructions, the files a learner starts from (one stub and its tests) and Exercism's example
solution. The example never enters an exercise's repository; `--model scripted` plays it.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lsp_agent.benchmarks.compliance.fixture_repo import git

DATA_FILE = Path(__file__).resolve().parent / "data" / "exercism-python.json"
SAMPLE_SEED = 31  # `--sample N` is the first N of one fixed shuffle: a sample grows by adding
DEFAULT_SAMPLE = 3


@dataclass(frozen=True)
class Exercise:
    name: str
    docs: Mapping[str, str]  # introduction, instructions, instructions_append ("" if none)
    files: Mapping[str, str]  # file name -> text: the stub and the test files
    example: str  # Exercism's example solution of the stub

    @property
    def solution_files(self) -> tuple[str, ...]:
        """The files to implement: aider's rule, a `.py` file without "test" in its name."""
        return tuple(name for name in self.files if "test" not in name and name.endswith(".py"))

    @property
    def test_files(self) -> tuple[str, ...]:
        """The tests and their helpers (`test_utils.py`): an agent must leave them alone."""
        return tuple(name for name in self.files if name not in self.solution_files)

    def instructions(self) -> str:
        """What aider's benchmark tells the model: introduction, instructions, appendix."""
        docs = self.docs
        parts = (
            docs.get("introduction"),
            docs.get("instructions"),
            docs.get("instructions_append"),
        )
        return "".join(part for part in parts if part)


@functools.cache
def load_exercises() -> tuple[Exercise, ...]:
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    return tuple(
        Exercise(item["name"], item["docs"], item["files"], item["example"])
        for item in data["exercises"]
    )


def source_commit() -> str:
    """The exercism/python commit the data was taken from."""
    return str(json.loads(DATA_FILE.read_text(encoding="utf-8"))["commit"])


def sample_order() -> list[str]:
    """Every exercise name in the fixed order `--sample` takes its first N from."""
    names = sorted(exercise.name for exercise in load_exercises())
    random.Random(SAMPLE_SEED).shuffle(names)
    return names


def select_exercises(sample: int | None = None, names: Sequence[str] = ()) -> list[Exercise]:
    """`names` (in that order) when given, else the first `sample` of `sample_order()`.

    Raises ValueError for an unknown name or a sample outside 1..133."""
    by_name = {exercise.name: exercise for exercise in load_exercises()}
    if names:
        unknown = [name for name in names if name not in by_name]
        if unknown:
            raise ValueError(
                f"unknown exercise {unknown[0]!r}; the 133 names are in "
                f"{DATA_FILE.relative_to(DATA_FILE.parents[4])} (e.g. leap, two-fer, bob)"
            )
        return [by_name[name] for name in dict.fromkeys(names)]
    count = DEFAULT_SAMPLE if sample is None else sample
    if not 1 <= count <= len(by_name):
        raise ValueError(f"--sample must be 1..{len(by_name)}")
    return [by_name[name] for name in sample_order()[:count]]


def write_repository(exercise: Exercise, root: Path) -> Path:
    """A fresh git repository of the exercise's stub and tests in the empty or missing
    directory `root`, committed so that an agent's changes show in `git diff`."""
    root.mkdir(parents=True, exist_ok=True)
    for name, text in exercise.files.items():
        (root / name).write_text(text, encoding="utf-8")
    (root / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"{exercise.name}: the exercise's stub and tests")
    return root


def changed_test_files(exercise: Exercise, root: Path) -> list[str]:
    """The exercise's test files that no longer hold their original text."""
    changed = []
    for name in exercise.test_files:
        path = root / name
        try:
            same = not path.is_symlink() and path.read_text("utf-8") == exercise.files[name]
        except (OSError, UnicodeDecodeError):
            same = False
        if not same:
            changed.append(name)
    return changed
