"""The shell parser of the command policy: a command line as a flat list of simple commands.

``parse`` reads a command line with tree-sitter bash (``parser.py``, walking the syntax tree
in ``tree.py`` with the node helpers of ``nodes.py`` and ``word_nodes.py``) into the data
model of ``model.py``: simple commands made of ``Word`` values (``words.py``: quote and
escape removal, ANSI-C strings, brace expansion). What the policy uses is importable from
here; the modules are this package's own.
"""

from __future__ import annotations

from safety.policy.shell.model import (
    EXPANSION,
    SHELLS,
    InlineScript,
    ParsedScript,
    Redirect,
    SimpleCommand,
    inline_script,
    program_name,
)
from safety.policy.shell.parser import MAX_SYNTAX_NODES, parse, syntax_nodes
from safety.policy.shell.words import (
    DYN,
    LIT,
    SUB,
    UNKNOWN,
    VAR,
    Word,
    decode_ansi_c,
    expand_argv,
    unescape_unquoted,
)

__all__ = [
    "DYN",
    "EXPANSION",
    "LIT",
    "MAX_SYNTAX_NODES",
    "SHELLS",
    "SUB",
    "UNKNOWN",
    "VAR",
    "InlineScript",
    "ParsedScript",
    "Redirect",
    "SimpleCommand",
    "Word",
    "decode_ansi_c",
    "expand_argv",
    "inline_script",
    "parse",
    "program_name",
    "syntax_nodes",
    "unescape_unquoted",
]
