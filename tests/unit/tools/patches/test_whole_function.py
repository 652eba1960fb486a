"""`propose_function(path, name, code)`: one Python definition written anew, as a diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.patches import PatchError, apply_whole_function, definitions
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
