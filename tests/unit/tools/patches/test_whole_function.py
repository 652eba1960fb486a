"""`propose_function(path, name, code)`: one Python definition written anew, as a diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.patches import (
    PatchError,
    apply_search_replace,
    apply_whole_function,
    definitions,
    whole_definition_reading,
)
from tools.workspace import DiskWorkspace

CALC = '''"""Arithmetic helpers."""


def weighted_total(values, weights):
    return sum(v * w for v, w in zip(values, weights))


def average(values):
    """The mean."""
    return sum(values) / (len(values) + 1)


class Stock:
    @property
    def total(self):
        return 0

    def count(self):
        return 1
'''


@pytest.fixture
def ws(tmp_path: Path) -> DiskWorkspace:
    (tmp_path / "calc.py").write_text(CALC, encoding="utf-8")
    (tmp_path / "notes.md").write_text("# not python (\n", encoding="utf-8")
    return DiskWorkspace(tmp_path)


def test_definitions_are_named_with_dots_and_bare_when_unique() -> None:
    found = definitions(CALC)
    assert list(found) == [
        "weighted_total",
        "average",
        "Stock",
        "Stock.total",
        "Stock.count",
        "total",
        "count",
    ]
    assert found["average"] == (8, 10, 0)
    assert found["Stock.total"] == (14, 16, 4)  # the decorator's line first
    assert definitions("def broken(:\n") == {}


def test_a_function_is_replaced_whole_and_nothing_else_changes(ws: DiskWorkspace) -> None:
    code = 'def average(values):\n    """The mean."""\n    return sum(values) / len(values)\n'
    result = apply_whole_function("calc.py", "average", code, ws)
    (patched,) = result.files
    assert patched.after == CALC.replace("(len(values) + 1)", "len(values)")
    assert "-    return sum(values) / (len(values) + 1)" in result.diff
    assert "weighted_total" not in "".join(
        line for line in result.diff.splitlines(keepends=True) if line[:1] in "+-"
    )


def test_a_method_written_at_column_0_is_indented_as_it_was(ws: DiskWorkspace) -> None:
    code = "@property\ndef total(self):\n    return 42\n"
    (patched,) = apply_whole_function("calc.py", "Stock.total", code, ws).files
    assert patched.after is not None
    assert "    @property\n    def total(self):\n        return 42\n\n    def count" in (
        patched.after
    )


@pytest.mark.parametrize(
    ("path", "name", "code", "message"),
    [
        ("calc.py", "median", "def median(v):\n    return 0\n", "defines no function or class"),
        ("calc.py", "average", "def average(values) return 1", "not valid Python"),
        ("calc.py", "average", "return sum(values) / len(values)", "whole new definition"),
        ("notes.md", "x", "def x():\n    pass\n", "not Python source that parses"),
        ("nope.py", "x", "def x():\n    pass\n", "does not exist"),
    ],
)
def test_bad_input_is_a_patch_error_with_a_hint(
    ws: DiskWorkspace, path: str, name: str, code: str, message: str
) -> None:
    with pytest.raises(PatchError, match=message) as caught:
        apply_whole_function(path, name, code, ws)
    assert caught.value.recovery_suggestion
    if "defines no function" in message:
        assert "average" in str(caught.value)  # the names it has


def _reading(ws: DiskWorkspace, old: str, new: str) -> str:
    plain = apply_search_replace("calc.py", old, new, ws)
    result = whole_definition_reading("calc.py", old, new, plain, ws)
    after = result.files[0].after
    assert after is not None
    return after


def test_a_def_line_replaced_by_a_whole_one_line_definition_replaces_the_definition(
    ws: DiskWorkspace,
) -> None:
    """Qwen2.5-Coder-1.5B's fix of average(): as written it leaves the old body under a
    one-line def (IndentationError); read as the whole definition it is the fix."""
    after = _reading(
        ws, "def average(values):", "def average(values): return sum(values) / len(values)"
    )
    assert "def average(values): return sum(values) / len(values)\n" in after
    assert "len(values) + 1" not in after and '"""The mean."""' not in after
    assert "def weighted_total" in after and "class Stock" in after
    namespace: dict[str, object] = {}
    exec(compile(after, "calc.py", "exec"), namespace)
    assert namespace["average"]([2, 4, 6]) == 4  # type: ignore[operator]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # a docstring inserted after a def line parses: taken as written
        ("def average(values):", 'def average(values):\n    """Arithmetic mean."""'),
        # a signature changed alone: taken as written
        ("def average(values):", "def average(values, weights=None):"),
        # another definition's name in new: not a rewrite of this one
        ("def average(values):", "def mean(values): return 0"),
    ],
)
def test_other_edits_of_a_def_line_are_taken_as_written(
    ws: DiskWorkspace, old: str, new: str
) -> None:
    assert _reading(ws, old, new) == CALC.replace(old, new, 1)


def test_a_whole_definition_ending_in_return_for_a_def_line_replaces_the_definition(
    ws: DiskWorkspace,
) -> None:
    """Through llama-server Qwen2.5-Coder-1.5B wrote average() whole for its def line; taken
    as written it parsed, with the old body below the new return, never run."""
    new = 'def average(values):\n    """Mean."""\n    return sum(values) / len(values)'
    after = _reading(ws, "def average(values):", new)
    assert after.count("def average") == 1 and "len(values) + 1" not in after
    guard = "def average(values):\n    if not values:\n        return 0"
    kept = _reading(ws, "def average(values):", guard)
    assert "if not values:" in kept and "len(values) + 1" in kept  # an insertion: as written
