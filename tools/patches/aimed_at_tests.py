"""A patch aimed at the failing tests that fixes none of them: ``missed_tests``.

A patch whose check says every failing test still fails is refused once by `apply_patch`
and applied when asked again: the failing tests need not be the task's (a docstring asked
for in a repository with one broken test). Asked to fix total_stock() (the compliance
suite's L8), Qwen2.5-Coder-1.5B in-process asked again for its no-fix `item.count + 1`,
had it applied, and proposed its next change on top of it (`AssertionError: 13`): 1 and 0
runs of 3 passed on 2026-11-29. When a test that still fails calls a definition the patch
changes, the patch was aimed at that test and missed: applied, it would leave the bug and
put a wrong change under the next one. So is a change elsewhere while a still-failing test
calls a definition the task names: asked to fix average(), the model changed
weighted_total(), had it applied when it asked again, and answered (L6 in-process). Such a
patch is never applied, and a model that constrains arguments cannot name it
(`never_applied`). One that also breaks passing tests is no exception: asked to fix
average(), the model renamed it to a second weighted_total() (test_weighted_total broke,
test_average failed as before) and had it applied when it asked again (L6 in-process at
77935e3). A no-fix patch whose failing tests call neither (a docstring asked for in a
repository with a broken test) is still applied when asked for again.

Only the test functions the check names are read, through the workspace, and parsed,
never run; nothing in them is followed as an instruction.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterable
from typing import NamedTuple

from tools.patches.model import FilePatch
from tools.patches.same_code import idle_patch, take_out_docstrings
from tools.patches.store import StoredPatch, fixes_none
from tools.patches.whole_function import walk_definitions
from tools.test_failures import called_names, is_test_support
from tools.workspace import Workspace, read_text_within

MAX_TEST_FILE_BYTES = 200_000
MAX_TESTS_READ = 20  # still-failing tests looked up; the rest are not read

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def never_applied(patch: StoredPatch, workspace: Workspace, task_names: Iterable[str] = ()) -> bool:
    """Whether `apply_patch` refuses `patch` every time: it changes no code
    (`idle_patch`) or misses the failing tests it was aimed at (`missed_tests`)."""
    return idle_patch(patch) or bool(missed_tests(patch, workspace, task_names))


class Miss(NamedTuple):
    """A still-failing test a no-fix patch was aimed at, and the name it calls that says so."""

    test: str  # `test_total_stock`
    name: str  # `total_stock`
    changed: bool  # the patch changes `name` (else the task names it)


def missed_tests(
    patch: StoredPatch, workspace: Workspace, task_names: Iterable[str] = ()
) -> list[Miss]:
    """Each still-failing test that calls a definition `patch` changes in a file that is not
    a test's, or one the task names (`task_names`: then the test is the task's), when the
    patch changes code and fixes none of the failing tests (whether it breaks passing ones
    or not); [] otherwise (see the module doc)."""
    check = patch.check
    if not fixes_none(check):
        return []
    changed: set[str] = set()
    for file in patch.result.files:
        if not is_test_support(file.path):
            changed |= _changed_definitions(file)
    if not changed:
        return []
    named = set(task_names)

    @functools.cache  # a test file is read and parsed once for all its failing tests
    def definitions_of(path: str) -> dict[str, ast.AST]:
        return _definitions(read_text_within(workspace, path, MAX_TEST_FILE_BYTES))

    missed: list[Miss] = []
    for test_id in getattr(check, "still_failing", ())[:MAX_TESTS_READ]:
        called = _called_by(test_id, definitions_of)
        if called & changed:
            missed.append(Miss(_test_name(test_id), sorted(called & changed)[0], True))
        elif called & named:
            missed.append(Miss(_test_name(test_id), sorted(called & named)[0], False))
    return missed


def _changed_definitions(patch: FilePatch) -> set[str]:
    """The names of the functions and methods whose code `patch` changes, adds or removes
    (a class's name too when its `__init__` changes: a test calls the class); empty when
    either text is not Python that parses."""
    if not patch.path.endswith(".py") or patch.before is None or patch.after is None:
        return set()
    try:
        before, after = _functions(patch.before), _functions(patch.after)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    changed: set[str] = set()
    for qualified in before.keys() | after.keys():
        if before.get(qualified) != after.get(qualified):
            owner, _, name = qualified.rpartition(".")
            changed.add(owner.rpartition(".")[2] if name == "__init__" and owner else name)
    return changed


def _functions(text: str) -> dict[str, str]:
    """Qualified name -> the dump of its code without docstrings, for every function and
    method of `text` (a docstring asked for while the function's test fails is no miss)."""
    tree = ast.parse(text)
    take_out_docstrings(tree)
    return {
        qualified: ast.dump(node)
        for qualified, node in walk_definitions(tree.body)
        if isinstance(node, _Function)
    }


def _called_by(test_id: str, definitions_of: Callable[[str], dict[str, ast.AST]]) -> set[str]:
    """The names the test function `test_id` names calls (`f(…)`, `obj.f(…)`), from its
    file's definitions (`definitions_of(path)`); empty when the id names no file or
    function found."""
    path, _, rest = test_id.partition("::")
    if not path.endswith(".py") or not rest:
        return set()
    qualified = ".".join(part.split("[")[0] for part in rest.split("::"))
    function = definitions_of(path).get(qualified)
    return called_names(function) if isinstance(function, _Function) else set()


def _definitions(source: str) -> dict[str, ast.AST]:
    """Dotted name -> node of every function and class in `source` (empty when it does not
    parse)."""
    try:
        return dict(walk_definitions(ast.parse(source).body))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}


def _test_name(test_id: str) -> str:
    """`test_total` from `tests/test_report.py::test_total[1]`."""
    return test_id.rpartition("::")[2].split("[")[0] or test_id
