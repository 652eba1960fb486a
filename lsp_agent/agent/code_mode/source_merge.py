"""How a code block's definitions merge into a Python file's source (`code_mode.
written_definitions` proposes the result).

`merge(original, block)` puts the block's top-level functions and classes that `original`
defines in place of `original`'s, and its methods too: a function written at the top level
whose first parameter is `self` and whose name is a method of exactly one of `original`'s
classes replaces that method, indented as it is. Asked to implement Hangman's methods,
Qwen2.5-Coder-1.5B wrote them one at a time as top-level functions (`def guess(self,
char): …`), 22 steps of which none reached hangman.py. The block's other definitions,
constants and imports come along; its example calls and prints do not. A block that
defines only a helper `original` calls and lacks is merged before the helper's first use.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass

__all__ = ["DEFINITION", "Merged", "merge", "merged_source", "only_defined"]

DEFINITION = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_BUILTINS = frozenset(dir(builtins))
_IMPORT = ast.Import | ast.ImportFrom


def _segment(lines: list[str], node: ast.stmt) -> str:
    return "\n".join(lines[_first_line(node) - 1 : node.end_lineno or node.lineno])


def _first_line(node: ast.stmt) -> int:
    """The statement's first line, its decorators' included."""
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _is_constant(node: ast.stmt) -> bool:
    """A module-level assignment of a value that calls nothing (`ONES = ["one", …]`, not
    `result = say(22)`, which is an example run)."""
    if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
        return not any(isinstance(part, ast.Call) for part in ast.walk(node.value))
    return False


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
    replacements = [
        _Replacement(
            _first_line(defined[n.name]),
            _end(defined[n.name]),
            _segment(block_lines, n),
            defined[n.name],
        )
        for n in written
        if n.name in defined
    ]
    methods = _methods(original_tree, exclude={n.name for n in written})
    rewritten_methods: dict[str, str] = {}  # method -> Class.method
    for node in written:
        owner = methods.get(node.name) if node.name not in defined else None
        if owner is None or not _takes_self(node):
            continue
        cls, method = owner
        pad = " " * method.col_offset
        text = "\n".join(
            pad + line if line.strip() else line
            for line in _segment(block_lines, node).splitlines()
        )
        replacements.append(_Replacement(_first_line(method), _end(method), text, cls))
        rewritten_methods[node.name] = f"{cls.name}.{node.name}"
    lacking = _used_names(original_tree) - set(defined) - _BUILTINS - _imported(original_tree)
    missing = {n.name for n in written} & lacking
    if not replacements and not missing:
        return None
    # a constant the file assigns, written again: in its place, not a second time
    assigned = {name: n for n in original_tree.body if (name := _constant_name(n))}
    constants = [n for n in block_tree.body if _is_constant(n) and _constant_name(n) in assigned]
    for constant in constants:
        old = assigned[_constant_name(constant)]
        replacements.append(
            _Replacement(_first_line(old), _end(old), _segment(block_lines, constant), old)
        )
    lines = original.splitlines()
    present = {line.strip() for line in lines}
    imports = [
        _segment(block_lines, n)
        for n in block_tree.body
        if isinstance(n, _IMPORT) and _segment(block_lines, n).strip() not in present
    ]
    added = [
        _segment(block_lines, n)
        for n in block_tree.body
        if (isinstance(n, DEFINITION) and n.name not in defined and n.name not in rewritten_methods)
        or (_is_constant(n) and n not in constants)
    ]
    out: list[str] = []
    cursor = 0  # lines of `original` copied so far
    for number, replacement in enumerate(sorted(replacements, key=lambda r: r.first)):
        if number == 0 and added:  # before the top-level statement of the first change
            anchor = _first_line(replacement.top) - 1
            out.extend([*lines[cursor:anchor], "\n\n".join(added), "", ""])
            cursor = anchor
        out.extend(lines[cursor : replacement.first - 1])
        out.append(replacement.text)
        cursor = replacement.last
    if not replacements:  # only helpers the file lacks: before their first use or definition
        first = min(
            (
                _first_line(n)
                for n in original_tree.body
                if isinstance(n, DEFINITION) or _used_names(n) & missing
            ),
            default=len(lines) + 1,
        )
        out.extend([*lines[: first - 1], "\n\n".join(added), "", ""])
        cursor = first - 1
    out.extend(lines[cursor:])
    if imports:
        at = _import_line(original_tree)
        out[at:at] = imports if at else [*imports, "", ""]
    names = {n.name for n in written if n.name in defined} | missing
    return Merged("\n".join(out).rstrip("\n") + "\n", names | set(rewritten_methods.values()))


def _constant_name(node: ast.stmt) -> str:
    """The one name a top-level assignment binds ("" for any other statement)."""
    targets = node.targets if isinstance(node, ast.Assign) else []
    if isinstance(node, ast.AnnAssign):
        targets = [node.target]
    return targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else ""


def _end(node: ast.stmt) -> int:
    return node.end_lineno or node.lineno


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
        elif not (isinstance(node, _IMPORT) or _is_constant(node) or _is_docstring(node)):
            return []
    return list(dict.fromkeys(names))


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
