"""Questions asked of tree-sitter bash syntax trees: errors, depth, line breaks, arithmetic."""

from __future__ import annotations

import re

from tree_sitter import Node

from safety.policy.shell.word_nodes import node_text

MAX_TREE_DEPTH = 120
ARITHMETIC = "(("
"""Program word of the pseudo-command standing for arithmetic evaluation of variables
(bash evaluates variable values recursively there, which can run ``$(...)`` in them)."""
_ARITHMETIC_NODES = frozenset({"arithmetic_expansion", "c_style_for_statement", "subscript"})
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_VARIABLE_NODES = frozenset({"variable_name", "simple_expansion", "expansion", "word"})
_BARE_NEWLINE = re.compile(r"(?<!\\)\n")


def error_text(root: Node) -> str:
    """Where the first parse error is, for the message."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            near = node_text(node)[:40] or node.type
            return f"cannot parse near {near!r} (line {node.start_point[0] + 1})"
        stack.extend(reversed(node.children))
    return "cannot parse the command"


def word_spans_lines(root: Node) -> bool:
    """True when the grammar glued a line break into an unquoted word (bash would not)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "word" and _BARE_NEWLINE.search(node_text(node)):
            return True
        stack.extend(node.children)
    return False


def is_arithmetic(node: Node) -> bool:
    """True for ``$((...))``, ``((...))``, C-style ``for`` and array subscripts."""
    if node.type in _ARITHMETIC_NODES:
        return True
    return (
        node.type == "compound_statement"
        and bool(node.children)
        and (node.children[0].type == "((")
    )


def arithmetic_on_variables(node: Node) -> bool:
    """True when an arithmetic context (or ``[[ a -eq b ]]``) refers to a variable."""
    if node.type == "test_command":
        operators = {node_text(n) for n in _descendants(node) if n.type == "test_operator"}
        if not operators & _ARITHMETIC_TESTS:
            return False
    children = node.named_children[1:] if node.type == "subscript" else node.named_children
    if node.type == "subscript" and [node_text(c) for c in children] in (["@"], ["*"]):
        return False  # ${a[@]}: every element, not an arithmetic index
    return any(
        n.type in _VARIABLE_NODES and not node_text(n).isdigit()
        for child in children
        for n in [child, *_descendants(child)]
    )


def _descendants(node: Node) -> list[Node]:
    out: list[Node] = []
    stack = list(node.children)
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(current.children)
    return out


def too_deep(root: Node) -> bool:
    """True when the syntax tree nests deeper than MAX_TREE_DEPTH (walking it would recurse).

    One cursor walk: no Node objects are made, so it costs little per node.
    """
    cursor = root.walk()
    depth = 0
    while True:
        if cursor.goto_first_child():
            depth += 1
            if depth > MAX_TREE_DEPTH:
                return True
            continue
        while not cursor.goto_next_sibling():
            if depth == 0 or not cursor.goto_parent():
                return False
            depth -= 1
