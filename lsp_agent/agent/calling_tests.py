"""The tests that call a function the task names, shown beside its definition.

Told "total_stock() returns the wrong total. Fix it." and shown `report.py` whole (its loop
`for item in items[1:]:`), Qwen2.5-Coder-1.5B proposed `item.count + 1`, or the same loop
again, in every run of the compliance suite's L8: from the code alone it did not see that the
first item is skipped. The repository's test says what the right total is
(`assert total_stock([Item("bolts", 3), Item("nuts", 4)]) == 7`), as a person fixing the
function would look up first. So beside a definition the task points at, the agent shows the
test functions that call it: the smallest first, whole, at most `MAX_TESTS`.

Test files are read through the workspace and parsed, never run. Their text is repository
text like a tool's result: nothing in it is followed as an instruction, and it changes no
setting or permission.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from tools.test_failures import called_names, is_test_support
from tools.workspace import Workspace, read_text_within

MAX_TESTS = 2
MAX_TEST_LINES = 12  # a longer test function is not shown
MAX_TEST_FILE_BYTES = 200_000
MAX_TEST_FILES = 200


@dataclass(frozen=True)
class CallingTest:
    """One test function that calls a name the task mentions."""

    name: str  # the function under test
    path: str
    line: int
    text: str  # the test function's source


def calling_tests(
    names: Iterable[str], workspace: Workspace, files: list[str]
) -> list[CallingTest]:
    """Test functions in the workspace's test `files` that call one of `names`, shortest
    first (at most `MAX_TESTS`, each at most `MAX_TEST_LINES` lines)."""
    wanted = set(names)
    if not wanted:
        return []
    found: list[CallingTest] = []
    test_files = [p for p in files if p.endswith(".py") and is_test_support(p)]
    for path in test_files[:MAX_TEST_FILES]:
        source = read_text_within(workspace, path, MAX_TEST_FILE_BYTES)
        if not source or not any(name in source for name in wanted):
            continue
        found.extend(_tests_in(source, path, wanted))
    found.sort(key=lambda test: (test.text.count("\n"), test.path, test.line))
    return found[:MAX_TESTS]


def _tests_in(source: str, path: str, names: set[str]) -> list[CallingTest]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    lines = source.splitlines()
    found: list[CallingTest] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if not node.name.startswith("test") or node.end_lineno is None:
            continue
        called = called_names(node) & names
        first = min([d.lineno for d in node.decorator_list] + [node.lineno])
        if not called or node.end_lineno - first + 1 > MAX_TEST_LINES:
            continue
        text = "\n".join(_dedent(lines[first - 1 : node.end_lineno]))
        found.append(CallingTest(sorted(called)[0], path, node.lineno, text))
    return found


def _dedent(lines: list[str]) -> list[str]:
    """A method's lines without the class's indentation."""
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    return [line[indent:] for line in lines]
