"""Turn tree-sitter bash word nodes into :class:`~safety.policy.shell.words.Word` values."""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from safety.policy.shell.words import (
    DYN,
    LIT,
    SUB,
    VAR,
    Word,
    decode_ansi_c,
    unescape_double_quoted,
    unescape_unquoted,
)


def node_text(node: Node | None) -> str:
    """The source text of ``node`` (empty for None)."""
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def read_word(node: Node, walk: Callable[[Node], None], text: Callable[[Node], str]) -> Word:
    """The Word a node spells; ``walk`` is called on nested command/process substitutions.

    ``text`` returns a node's source text.
    """
    if node.type == "word":  # the common case, without the general walk
        raw = text(node)
        return Word(raw, ((LIT, unescape_unquoted(raw)),), escaped="\\" in raw)
    segs: list[tuple[str, str]] = []
    flags = {"quoted": False, "escaped": False, "ansi_c": False}
    _visit(node, segs, flags, walk, text)
    merged: list[tuple[str, str]] = []
    for kind, piece in segs:
        if merged and kind == LIT and merged[-1][0] == LIT:
            merged[-1] = (LIT, merged[-1][1] + piece)
        else:
            merged.append((kind, piece))
    return Word(text(node), tuple(merged), **flags)


def _visit(
    node: Node,
    segs: list[tuple[str, str]],
    flags: dict[str, bool],
    walk: Callable[[Node], None],
    text: Callable[[Node], str],
) -> None:
    kind = node.type
    raw = text(node)
    if kind == "word":
        flags["escaped"] |= "\\" in raw
        segs.append((LIT, unescape_unquoted(raw)))
    elif kind in ("number", "variable_name", "file_descriptor", "brace_expression"):
        # brace_expression is a ``{1..3}`` sequence: literal text, expanded by the policy
        segs.append((LIT, raw))
    elif kind == "raw_string":
        flags["quoted"] = True
        segs.append((LIT, raw[1:-1]))
    elif kind == "ansi_c_string":
        flags["ansi_c"] = True
        segs.append((LIT, decode_ansi_c(raw[2:-1])))
    elif kind in ("string", "translated_string"):
        flags["quoted"] = True
        for child in node.named_children:
            if child.type == "string_content":
                segs.append((LIT, unescape_double_quoted(text(child))))
            else:
                _visit(child, segs, flags, walk, text)
    elif kind == "concatenation":
        for child in node.children:
            if child.is_named:
                _visit(child, segs, flags, walk, text)
            else:
                segs.append((LIT, text(child)))
    elif kind == "simple_expansion":
        name = node.named_children[0] if node.named_children else None
        plain = name is not None and name.type == "variable_name" and not raw[1:].isdigit()
        segs.append((VAR, text(name)) if plain and name is not None else (DYN, raw))
    elif kind == "expansion":
        names = [c for c in node.children if c.type == "variable_name"]
        if len(node.children) == 3 and len(names) == 1:
            segs.append((VAR, text(names[0])))
        else:
            segs.append((DYN, raw))
            for child in node.named_children:
                walk(child)
    elif kind in ("command_substitution", "process_substitution"):
        segs.append((SUB, raw))
        walk(node)
    else:
        segs.append((DYN, raw))
        walk(node)
