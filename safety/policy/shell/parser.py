"""Parse a shell command line (tree-sitter bash) into a flat list of simple commands.

Every simple command anywhere in the input is listed: lists, pipelines, subshells,
compound statements, function bodies, command/process substitutions, and the inner
scripts of ``bash -c``/``sh -c``, ``eval`` and here-strings/here-documents fed to a
shell. Carriage returns count as command separators. Anything the grammar cannot
parse is reported in ``errors`` (callers fail closed).
"""

from __future__ import annotations

from functools import cache

import tree_sitter_bash
from tree_sitter import Language, Parser, Tree

from safety.policy.shell.model import (
    SHELLS,
    InlineScript,
    ParsedScript,
    Redirect,
    SimpleCommand,
    inline_script,
    program_name,
)
from safety.policy.shell.tree import MAX_SYNTAX_NODES, TreeWalker

__all__ = [
    "MAX_SYNTAX_NODES",
    "SHELLS",
    "InlineScript",
    "ParsedScript",
    "Redirect",
    "SimpleCommand",
    "bash_language",
    "inline_script",
    "parse",
    "program_name",
    "syntax_nodes",
]


@cache
def bash_language() -> Language:
    """The compiled tree-sitter bash language (cached)."""
    return Language(tree_sitter_bash.language())


def _parse_tree(source: bytes) -> Tree:
    return Parser(bash_language()).parse(source)


def parse(
    script: str, *, shells: frozenset[str] = SHELLS, max_nodes: int = MAX_SYNTAX_NODES
) -> ParsedScript:
    """Parse ``script`` into its simple commands (see the module docstring).

    When the syntax trees (the script's and its inner scripts') hold more than
    ``max_nodes`` nodes in all, nothing is listed and ``too_complex`` is set: walking is
    linear, but this bounds the time any command up to the length limit takes.
    """
    walker = TreeWalker(shells, _parse_tree, max_nodes=max_nodes)
    walker.run(script, origin="", depth=0)
    if walker.too_complex:
        return ParsedScript((), tuple(walker.errors), frozenset(), too_complex=True)
    return ParsedScript(tuple(walker.cmds), tuple(walker.errors), frozenset(walker.functions))


def syntax_nodes(script: str, *, shells: frozenset[str] = SHELLS) -> int:
    """How many syntax nodes ``parse`` walks for ``script`` (inner scripts included)."""
    walker = TreeWalker(shells, _parse_tree, max_nodes=1 << 30)
    walker.run(script, origin="", depth=0)
    return walker.nodes
