"""A block's constant that one function of the file assigns in its own body goes into that
body (`code_mode.source_merge`): asked again for scrabble-score, Qwen2.5-Coder-1.5B wrote
only `letter_values = {…, 'x': 8}`, the table score() assigns in its body, so a top-level
copy would have changed nothing and nothing was proposed."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from lsp_agent.agent.code_mode.statements import constant_name, indented, is_constant, segment

__all__ = ["BodyConstant", "body_constants"]


@dataclass(frozen=True)
class BodyConstant:
    """A block's constant, written in place of a function body's assignment of it."""

    name: str
    owner: str  # the function that assigns it: `score`, or `Class.method`
    top: ast.stmt  # the file's top-level function or class that holds the assignment
    replaced: ast.stmt  # the assignment it replaces
    text: str  # the block's assignment, indented as `replaced` is


def body_constants(
    original: ast.Module, block: ast.Module, block_lines: list[str], written: set[str]
) -> list[BodyConstant]:
    """The block's top-level tables (constants whose value is a dict, list, set or tuple
    display) that `original` assigns not at its top level but once in one function's body
    (a top-level function, or a method of a top-level class), by a table too. Functions,
    classes and methods named in `written` (the block writes them whole) are left out, and
    so is a table whose text holds a string that spans lines (indenting it would change
    the string)."""
    assigned = {constant_name(node) for node in original.body}
    spots = _assignments_in_bodies(original, written)
    found: list[BodyConstant] = []
    for node in block.body:
        name = constant_name(node) if _is_table(node) else ""
        spot = spots.get(name) if name not in assigned else None
        if spot is None or _has_multiline_string(node):
            continue
        top, owner, replaced = spot
        text = indented(segment(block_lines, node), replaced.col_offset)
        found.append(BodyConstant(name, owner, top, replaced, text))
    return found


def _assignments_in_bodies(
    tree: ast.Module, written: set[str]
) -> dict[str, tuple[ast.stmt, str, ast.stmt]]:
    """Name -> (top-level statement, owner, assignment), for names exactly one function
    assigns, once, in its own body by a table."""
    found: dict[str, list[tuple[ast.stmt, str, ast.stmt]]] = {}
    for top in tree.body:
        if isinstance(top, ast.ClassDef):
            functions = [
                (f"{top.name}.{node.name}", node)
                for node in top.body
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                and node.name not in written
            ]
        elif isinstance(top, ast.FunctionDef | ast.AsyncFunctionDef):
            functions = [(top.name, top)]
        else:
            continue
        if top.name in written:
            continue
        for owner, function in functions:
            for node in function.body:
                if _is_table(node) and (name := constant_name(node)):
                    found.setdefault(name, []).append((top, owner, node))
    return {name: spots[0] for name, spots in found.items() if len(spots) == 1}


def _is_table(node: ast.stmt) -> bool:
    """A constant whose value is a dict, list, set or tuple display: a local `total = 0` or
    `word = "abc"` is more often a start value or an example than a table."""
    value = getattr(node, "value", None)
    return is_constant(node) and isinstance(value, ast.Dict | ast.List | ast.Set | ast.Tuple)


def _has_multiline_string(node: ast.stmt) -> bool:
    return any(
        isinstance(part, ast.Constant)
        and isinstance(part.value, str | bytes)
        and part.lineno != part.end_lineno
        for part in ast.walk(node)
    )
