"""A patch that leaves a Python file's code as it was: ``same_code_note``.

Asked to fix average() (L6) or total_stock() (L8), Qwen2.5-Coder-1.5B through llama-server
often wrote the whole definition again for its def line with the bug kept, its docstring or
comment left out: ``def average(values): return sum(values) / (len(values) + 1)``. The
check then says that the tests fail as before, and the model applied it anyway or answered
that average() was fixed. What it missed is that it changed nothing: so the proposal's
reply says so, and lists the code lines of the definition it rewrote, one of which is
wrong, with the call that changes one line. Only the code is compared (the syntax trees
without docstrings); a patch that also changes a docstring or comment text, or adds one,
is a change.

Told so, and told "do not apply it", the model still applied such a patch on its last step
(L6 through llama-server, 2 runs of 3): ``idle_patch`` says which patches `apply_patch`
never applies and a model that constrains arguments cannot name: code as it was, while
its check names failing tests and fixes none of them. One that only drops a docstring in a
repository whose tests all pass is not idle: that may be the task.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator

from tools.patches.model import FilePatch, PatchResult
from tools.patches.store import StoredPatch, fixes_none
from tools.patches.whole_function import definitions
from tools.test_failures import is_test_support

MAX_LINES = 8  # code lines of the definition shown
_WithBody = ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef


def same_code_note(patch_id: str, result: PatchResult, failing: bool) -> str:
    """``"p1 changes no code: …"`` for a patch that leaves every Python file's code as it
    was (see the module doc), with the lines of the definition it rewrote and the call that
    changes one of them when tests fail (`failing`: `_line_to_change`), or ""."""
    if not leaves_code_as_is(result):
        return ""
    first = result.files[0]
    named, _ = _rewritten(first)
    where = f"{named}() in {first.path}" if named else first.path
    told = (
        f"{patch_id} changes no code: {where} is the same code as before (it only leaves out "
        "or moves docstrings, comments or spaces)."
    )
    return f"{told} {_line_to_change(result)}".strip() if failing else told


def _line_to_change(result: PatchResult) -> str:
    """``"The wrong line is one of these: `a`; `b`. Change that line: propose_patch(…)."``:
    the code lines of the definition `result` rewrote in its first file that is not a
    test's (every file is Python that parses: `leaves_code_as_is`), as they are before it,
    and the call that changes one; "" when it rewrote none (the tests are right: the way
    on is never to change them)."""
    first = next((f for f in result.files if not is_test_support(f.path)), None)
    lines = _rewritten(first)[1] if first is not None else []
    if first is None or not lines:
        return ""
    shown = "; ".join(f"`{line}`" for line in lines[:MAX_LINES])
    return (
        f"The wrong line is one of these: {shown}. Change that line: "
        f'propose_patch(path="{first.path}", old="<the wrong line>", new="<that line '
        'corrected>").'
    )


def idle_patch(patch: StoredPatch) -> bool:
    """Whether `patch` leaves the code as it was while its check names failing tests it
    fixes none of (the module doc): applying it changes nothing a task needs."""
    return fixes_none(patch.check) and leaves_code_as_is(patch.result)


def leaves_code_as_is(result: PatchResult) -> bool:
    """Whether every file `result` changes is Python whose code stays as it was."""
    files = result.files
    return bool(files) and all(f.path.endswith(".py") and _same_code(f) for f in files)


def _same_code(patch: FilePatch) -> bool:
    """Whether `patch` leaves its file's code as it was: both texts parse, their trees match
    without docstrings, and the docstrings and comments after it were all there before."""
    if patch.before is None or patch.after is None or patch.before == patch.after:
        return False
    try:
        before, after = ast.parse(patch.before), ast.parse(patch.after)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    old_docs, new_docs = take_out_docstrings(before), take_out_docstrings(after)
    if ast.dump(before) != ast.dump(after):
        return False  # take_out_docstrings took them out of both
    return set(new_docs) <= set(old_docs) and set(_comments(patch.after)) <= set(
        _comments(patch.before)
    )


def take_out_docstrings(tree: ast.Module) -> list[str]:
    """The docstrings of `tree`'s module, classes and functions, taken out of the tree."""
    found: list[str] = []
    for node, doc in _docstring_nodes(tree):
        found.append(str(getattr(doc.value, "value", "")).strip())
        node.body = node.body[1:] or [ast.Pass()]
    return found


def _docstring_nodes(tree: ast.Module) -> list[tuple[_WithBody, ast.Expr]]:
    """Each module, class and function of `tree` that has a docstring, with it."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, _WithBody) or not node.body:
            continue
        first = node.body[0]
        value = getattr(first, "value", None)
        if isinstance(first, ast.Expr) and isinstance(getattr(value, "value", None), str):
            found.append((node, first))
    return found


def _comments(text: str) -> Iterator[str]:
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                yield token.string.strip()
    except (tokenize.TokenError, SyntaxError):
        return


def _rewritten(patch: FilePatch) -> tuple[str, list[str]]:
    """The innermost definition of the file before `patch` that the patch touches, and its
    code lines (no docstring, comment or blank line), or ("", [])."""
    before = patch.before or ""
    old, new = before.splitlines(), (patch.after or "").splitlines()
    touched = _first_changed_line(old, new)
    inside = [
        (first, last, name)
        for name, (first, last, _) in definitions(before).items()
        if first <= touched <= last
    ]
    if not inside:
        return "", []
    first, last, name = max(inside)  # the innermost: the latest start (then its dotted name)
    docs = set(_docstring_lines(before))
    lines = [
        line.strip()
        for number, line in enumerate(old[first:last], start=first + 1)
        if line.strip() and not line.strip().startswith("#") and number not in docs
    ]
    return name.rsplit(".", 1)[-1], lines


def _first_changed_line(old: list[str], new: list[str]) -> int:
    """The 1-based number of the first line where `old` and `new` differ."""
    for number, (a, b) in enumerate(zip(old, new, strict=False), start=1):
        if a != b:
            return number
    return min(len(old), len(new)) + 1


def _docstring_lines(text: str) -> Iterator[int]:
    """The line numbers docstrings take in `text`."""
    for _, doc in _docstring_nodes(ast.parse(text)):
        yield from range(doc.lineno, (doc.end_lineno or doc.lineno) + 1)
