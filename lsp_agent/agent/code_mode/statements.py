"""Small facts about a module's statements that merging a code block needs: where a
statement starts and ends, its text, and whether it is a constant (`code_mode.source_merge`,
`code_mode.body_constants`)."""

from __future__ import annotations

import ast

__all__ = ["constant_name", "end_line", "first_line", "indented", "is_constant", "segment"]


def segment(lines: list[str], node: ast.stmt) -> str:
    """The statement's text, its decorators' included."""
    return "\n".join(lines[first_line(node) - 1 : end_line(node)])


def first_line(node: ast.stmt) -> int:
    """The statement's first line, its decorators' included."""
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def end_line(node: ast.stmt) -> int:
    return node.end_lineno or node.lineno


def indented(text: str, columns: int) -> str:
    """`text` with every line that is not blank moved right by `columns`."""
    pad = " " * columns
    return "\n".join(pad + line if line.strip() else line for line in text.splitlines())


def is_constant(node: ast.stmt) -> bool:
    """An assignment of a value that calls nothing (`ONES = ["one", …]`, not
    `result = say(22)`, which is an example run)."""
    if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
        return not any(isinstance(part, ast.Call) for part in ast.walk(node.value))
    return False


def constant_name(node: ast.stmt) -> str:
    """The one name an assignment binds ("" for any other statement)."""
    targets = node.targets if isinstance(node, ast.Assign) else []
    if isinstance(node, ast.AnnAssign):
        targets = [node.target]
    return targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else ""
