"""``propose_function(path, name, code)``: one Python function, method or class written anew.

The whole-function edit format. A small model asked to copy the exact lines it changes into
``old`` often copies the wrong ones: Qwen2.5-Coder-1.5B, having said that average() divides
by ``len(values) + 1``, replaced ``weighted_total``'s return line, or ``def average(values):``
alone. Naming the definition and writing it whole asks for what such a model does best,
writing code (aider measured whole-file edits well above diffs on a 7B model: 51.9% against
32.3%), without rewriting the rest of the file.

``name`` is a function or class of the file (``average``, a method as ``Stock.total`` or, when
only one has that name, ``total``); its lines, decorators included, are replaced by ``code``,
indented as the definition was (the model may write a method at column 0). ``code`` must
parse and define something; the result goes through ``apply_whole_file``, so the patch is a
plain unified diff like any other.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from dataclasses import replace

from safety.errors import ErrorType, read_file_call
from safety.unified_diff import exists_quietly, workspace_path
from tools.patches.diff_apply import missing_file_error, read_or_raise
from tools.patches.model import PatchError, PatchResult
from tools.patches.search_replace import apply_whole_file
from tools.workspace import Workspace

_DEFINITION = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_NO_LIMIT = 1_000_000  # lines: the file is not rewritten by the model, only one definition
MAX_LISTED = 20


def definitions(text: str) -> dict[str, tuple[int, int, int]]:
    """Definitions of a Python source: name -> (first line, last line, column), 1-based lines,
    decorators included. Nested ones are named with dots (`Stock.total`); a bare name is
    added too when it is unique. Empty when the text does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found: dict[str, tuple[int, int, int]] = {}
    bare: dict[str, list[tuple[int, int, int]]] = {}
    for qualified, node in walk_definitions(tree.body):
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        place = (first, node.end_lineno or node.lineno, node.col_offset)
        found[qualified] = place
        bare.setdefault(node.name, []).append(place)
    for name, places in bare.items():
        if len(places) == 1:
            found.setdefault(name, places[0])
    return found


def walk_definitions(body: list[ast.stmt], prefix: str = "") -> Iterator[tuple[str, _DEFINITION]]:
    """Each function and class in `body`, outer first, with its dotted name (`Stock.total`)."""
    for node in body:
        if isinstance(node, _DEFINITION):
            qualified = f"{prefix}{node.name}"
            yield qualified, node
            yield from walk_definitions(node.body, f"{qualified}.")


def apply_whole_function(path: str, name: str, code: str, workspace: Workspace) -> PatchResult:
    """`name`'s definition in `path` replaced by `code` (see the module doc)."""
    rel = workspace_path(path, workspace)
    assert rel is not None  # a path in, a path out
    if not exists_quietly(workspace, rel):
        raise missing_file_error(workspace, rel)
    before = read_or_raise(workspace, rel)
    found = definitions(before)
    if not found:
        raise PatchError(
            f"{rel} is not Python source that parses, so it has no definitions to replace.",
            kind=ErrorType.INVALID_ARGUMENT,
            recovery_suggestion="Change it with propose_patch(path, old, new).",
            file=rel,
        )
    key = name.strip().removesuffix("()")
    if key not in found:
        listed = ", ".join(list(found)[:MAX_LISTED])
        raise PatchError(
            f"{rel} defines no function or class named {name!r}. It defines: {listed}.",
            kind=ErrorType.INVALID_ARGUMENT,
            recovery_suggestion=(
                f"Use one of those names, or read the file: {read_file_call(rel, 1, 50)}."
            ),
            file=rel,
        )
    first, last, column = found[key]
    lines = before.splitlines(keepends=True)
    new_lines = _indented(code, rel, lines[first - 1][:column])
    after = "".join([*lines[: first - 1], *new_lines, *lines[last:]])
    return apply_whole_file(rel, after, workspace, _NO_LIMIT)


def whole_definition_reading(
    path: str, old: str, new: str, plain: PatchResult, workspace: Workspace
) -> PatchResult:
    """`plain` (``propose_patch``'s edit as written), or, when `plain` leaves the file no
    longer parsing or leaves the old body unreachable under a new one that ends in
    `return` or `raise`, `whole_definition` of `old` and `new` where there is one.
    Qwen2.5-Coder-1.5B, having said average() should divide by ``len(values)``, sent
    ``old="def average(values):"``, ``new="def average(values): return sum(values) /
    len(values)"``: taken as written, the old body is left under a one-line def (an
    IndentationError); read as a whole definition, it is the fix it meant. Through
    llama-server it wrote total_stock() whole for its def line, ending in `return total`:
    taken as written, the old body stayed below it, never run. An insertion after a def
    line (a docstring, a guard clause) parses and does not end the function: taken as
    written."""
    patched = plain.files[0]
    if len(plain.files) != 1 or patched.after is None:
        return plain
    if parses(patched.after) and not _ends_in_exit(new):
        return plain  # the edit as written parses and keeps the old body live
    return whole_definition(path, old, new, workspace) or plain


def _ends_in_exit(code: str) -> bool:
    """Whether `code` is one function whose body ends in `return` or `raise`."""
    node = _definition(code)
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    return isinstance(node.body[-1], ast.Return | ast.Raise)


def whole_definition(path: str, old: str, new: str, workspace: Workspace) -> PatchResult | None:
    """When `old` is the def or class line of one definition in the Python file `path` and
    `new` a whole new definition of that name: that definition replaced whole, with a note
    saying so, if the file then parses; else None."""
    header = old.strip()
    if "\n" in header or not path.endswith(".py"):
        return None
    named = _defined_name(header + " pass")
    if named is None or _defined_name(new) != named:
        return None
    try:
        whole = apply_whole_function(path, named, new, workspace)
    except PatchError:
        return None
    rewritten = whole.files[0]
    if rewritten.after is None or not parses(rewritten.after):
        return None
    note = (
        f"{rewritten.path}: 'old' was the def line of {named} and 'new' a whole definition; "
        f"{named} was replaced whole"
    )
    return PatchResult((replace(rewritten, adjustments=(*rewritten.adjustments, note)),))


def parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _defined_name(code: str) -> str | None:
    """The name `code` defines, when it is exactly one function or class."""
    node = _definition(code)
    return node.name if node is not None else None


def _definition(code: str) -> ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | None:
    """The one function or class `code` is (dedented), or None."""
    try:
        tree = ast.parse(textwrap.dedent(code).strip())
    except SyntaxError:
        return None
    if len(tree.body) == 1 and isinstance(tree.body[0], _DEFINITION):
        return tree.body[0]
    return None


def _indented(code: str, rel: str, pad: str) -> list[str]:
    """`code` dedented, checked, then indented by `pad` (the definition's own indentation),
    as lines with ends."""
    body = textwrap.dedent(code.replace("\r\n", "\n")).strip("\n")
    try:
        tree = ast.parse(body)
    except SyntaxError as exc:
        raise PatchError(
            f"code is not valid Python: {exc.msg} (line {exc.lineno}).",
            kind=ErrorType.INVALID_ARGUMENT,
            recovery_suggestion="Write the whole definition again, from its def or class line.",
            file=rel,
        ) from exc
    if not any(isinstance(node, _DEFINITION) for node in tree.body):
        raise PatchError(
            "code must be the whole new definition, starting with its def or class line.",
            kind=ErrorType.INVALID_ARGUMENT,
            recovery_suggestion="Write the function again in full: def ...(...): and its body.",
            file=rel,
        )
    return [(pad + line if line.strip() else "") + "\n" for line in body.split("\n")]
