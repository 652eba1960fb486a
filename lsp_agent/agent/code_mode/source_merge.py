"""How a code block's definitions merge into a Python file's source (`code_mode.
written_definitions` proposes the result).

`merge(original, block)` puts the block's top-level functions and classes that `original`
defines in place of `original`'s, and its methods too: a function written at the top level
whose first parameter is `self` and whose name is a method of exactly one of `original`'s
classes replaces that method, indented as it is. Asked to implement Hangman's methods,
Qwen2.5-Coder-1.5B wrote them one at a time as top-level functions (`def guess(self,
char): …`), 22 steps of which none reached hangman.py. The block's other definitions,
constants and imports come along; its example calls and prints do not. A block that
defines only a helper `original` calls and lacks is merged before the helper's first use. A
constant one function assigns in its body goes into that body (`code_mode.body_constants`).
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass

from lsp_agent.agent.code_mode.body_constants import body_constants
from lsp_agent.agent.code_mode.statements import (
    constant_name,
    end_line,
    first_line,
    indented,
    is_constant,
    segment,
)

__all__ = ["DEFINITION", "Merged", "merge", "merged_source", "only_defined"]

DEFINITION = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_BUILTINS = frozenset(dir(builtins))
_IMPORT = ast.Import | ast.ImportFrom


def merged_source(original: str, block: str) -> str | None:
    """`original` with the definitions `block` writes anew in their place (module doc);
    None when the block neither rewrites one of `original`'s top-level functions, classes
    or methods nor defines a helper `original` uses and lacks, or either does not parse."""
    merged = merge(original, block)
    return None if merged is None else merged.text


@dataclass(frozen=True)
class Merged:
    """`merge`'s result: the merged text, and the names the block wrote anew
    (`Class.method` for a method)."""

    text: str
    names: set[str]


@dataclass(frozen=True)
class _Replacement:
    first: int  # the replaced lines of `original`, 1-based, inclusive
    last: int
    text: str
    top: ast.stmt  # the top-level statement of `original` that holds them


def merge(original: str, block: str) -> Merged | None:
    """`merged_source`'s text, and the names of the definitions the block wrote anew."""
    try:
        original_tree, block_tree = ast.parse(original), ast.parse(block)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    defined = {n.name: n for n in original_tree.body if isinstance(n, DEFINITION)}
    block_lines = block.splitlines()
    written = [n for n in block_tree.body if isinstance(n, DEFINITION)]
    replacements, rewritten_methods = _definitions_replaced(
        original_tree, written, defined, block_lines
    )
    in_bodies = body_constants(original_tree, block_tree, block_lines, {n.name for n in written})
    replacements += [_Replacement(*_lines(c.replaced), c.text, c.top) for c in in_bodies]
    lacking = _used_names(original_tree) - set(defined) - _BUILTINS - _imported(original_tree)
    missing = {n.name for n in written} & lacking
    if not replacements and not missing:
        return None
    # a constant the file assigns, written again: in its place, not a second time
    assigned = {name: n for n in original_tree.body if (name := constant_name(n))}
    constants = [n for n in block_tree.body if is_constant(n) and constant_name(n) in assigned]
    for constant in constants:
        old = assigned[constant_name(constant)]
        replacements.append(_Replacement(*_lines(old), segment(block_lines, constant), old))
    moved = {c.name for c in in_bodies}
    added = [
        segment(block_lines, n)
        for n in block_tree.body
        if (isinstance(n, DEFINITION) and n.name not in defined and n.name not in rewritten_methods)
        or (is_constant(n) and n not in constants and constant_name(n) not in moved)
    ]
    lines = _assembled(original, original_tree, replacements, added, missing)
    present = {line.strip() for line in original.splitlines()}
    imports = [
        segment(block_lines, n)
        for n in block_tree.body
        if isinstance(n, _IMPORT) and segment(block_lines, n).strip() not in present
    ]
    if imports:
        at = _import_line(original_tree)
        lines[at:at] = imports if at else [*imports, "", ""]
    names = {n.name for n in written if n.name in defined} | missing
    names |= set(rewritten_methods.values()) | {c.owner for c in in_bodies}
    return Merged("\n".join(lines).rstrip("\n") + "\n", names)


def _lines(node: ast.stmt) -> tuple[int, int]:
    return first_line(node), end_line(node)


def _definitions_replaced(
    original: ast.Module,
    written: list[DEFINITION],
    defined: dict[str, DEFINITION],
    block_lines: list[str],
) -> tuple[list[_Replacement], dict[str, str]]:
    """The replacements of the file's definitions the block writes whole, and of its
    methods the block writes at the top level; the latter's names (method -> Class.method)."""
    replacements = [
        _Replacement(*_lines(defined[n.name]), segment(block_lines, n), defined[n.name])
        for n in written
        if n.name in defined
    ]
    methods = _methods(original, exclude={n.name for n in written})
    rewritten_methods: dict[str, str] = {}
    for node in written:
        owner = methods.get(node.name) if node.name not in defined else None
        if owner is None or not _takes_self(node):
            continue
        cls, method = owner
        text = indented(segment(block_lines, node), method.col_offset)
        replacements.append(_Replacement(*_lines(method), text, cls))
        rewritten_methods[node.name] = f"{cls.name}.{node.name}"
    return replacements, rewritten_methods


def _assembled(
    original: str,
    tree: ast.Module,
    replacements: list[_Replacement],
    added: list[str],
    missing: set[str],
) -> list[str]:
    """`original`'s lines with the replacements made and the added statements put before
    the first change (or, with no change, before the first use of a helper it lacks)."""
    lines = original.splitlines()
    out: list[str] = []
    cursor = 0  # lines of `original` copied so far
    for number, replacement in enumerate(sorted(replacements, key=lambda r: r.first)):
        if number == 0 and added:  # before the top-level statement of the first change
            anchor = first_line(replacement.top) - 1
            out.extend([*lines[cursor:anchor], "\n\n".join(added), "", ""])
            cursor = anchor
        out.extend(lines[cursor : replacement.first - 1])
        out.append(replacement.text)
        cursor = replacement.last
    if not replacements:  # only helpers the file lacks: before their first use or definition
        first = min(
            (
                first_line(n)
                for n in tree.body
                if isinstance(n, DEFINITION) or _used_names(n) & missing
            ),
            default=len(lines) + 1,
        )
        out.extend([*lines[: first - 1], "\n\n".join(added), "", ""])
        cursor = first - 1
    out.extend(lines[cursor:])
    return out


def _methods(
    tree: ast.Module, exclude: set[str]
) -> dict[str, tuple[ast.ClassDef, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """The methods of `tree`'s top-level classes (not those in `exclude`: classes the block
    writes whole), by name; a name two classes share is left out (which one is meant?)."""
    found: dict[str, list[tuple[ast.ClassDef, ast.FunctionDef | ast.AsyncFunctionDef]]] = {}
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef) or cls.name in exclude:
            continue
        for node in cls.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found.setdefault(node.name, []).append((cls, node))
    return {name: owners[0] for name, owners in found.items() if len(owners) == 1}


def _takes_self(node: ast.stmt) -> bool:
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    arguments = node.args.posonlyargs + node.args.args
    return bool(arguments) and arguments[0].arg == "self"


def _imported(tree: ast.Module) -> set[str]:
    """The names `tree`'s top-level imports bind."""
    return {
        (alias.asname or alias.name).split(".")[0]
        for node in tree.body
        if isinstance(node, _IMPORT)
        for alias in node.names
    }


def _used_names(tree: ast.AST) -> set[str]:
    """The names `tree`'s code reads (calls included)."""
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }


def _import_line(tree: ast.Module) -> int:
    """The line after which new imports go: the last import's, or the module docstring's."""
    body = tree.body
    last = max((n.end_lineno or 0 for n in body if isinstance(n, _IMPORT)), default=0)
    if last or not body:
        return last
    first = body[0]
    return (first.end_lineno or 0) if _is_docstring(first) else 0


def only_defined(code: str) -> list[str]:
    """The names a block's top level defines when that is all it does (definitions, imports,
    constants, a docstring); [] when it also runs something, or does not parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, DEFINITION):
            names.append(node.name)
        elif not (isinstance(node, _IMPORT) or is_constant(node) or _is_docstring(node)):
            return []
    return list(dict.fromkeys(names))


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
