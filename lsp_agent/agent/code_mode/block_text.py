"""The code a model's block means when the block restarts itself or opens with its thought.

Qwen2.5-Coder-1.5B sometimes writes its thought inside the block and then opens the block
again: "Thought: …\\n```python\\nthought: I need to add some checks …\\n```python\\nclass
BankAccount: …". The block then runs from `thought:`, a SyntaxError, and the class after it
is lost; with only the `thought:` line in the block, the step is a SyntaxError that says
nothing of why (bank-account, 2026-11-29: six of its eleven steps). `block_code(code)` gives
what runs: the code after the last opening fence inside the block, without leading lines
that are a thought (`thought: …`, `Thoughts: …`), when the block does not parse as it is
and the rest does. A block of nothing but such lines gives "" (the executor says so, with
what writes the task's code).
"""

from __future__ import annotations

import ast
import re

__all__ = ["PARSE_ERRORS", "block_code", "parses"]

_OPENING_FENCE = re.compile(r"^\s*```[A-Za-z0-9_+-]*\s*$")
_THOUGHT = re.compile(r"^\s*(?:thoughts?|thinking)\s*:", re.IGNORECASE)
PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)  # text Python cannot take


def block_code(code: str) -> str:
    """The code `code` means (module doc); `code` itself when it parses."""
    if parses(code):
        return code
    lines = code.splitlines()
    fences = [number for number, line in enumerate(lines) if _fence(line)]
    if fences and any(line.strip() for line in lines[fences[-1] + 1 :]):
        lines = lines[fences[-1] + 1 :]
    while lines and (not lines[0].strip() or _THOUGHT.match(lines[0]) or _fence(lines[0])):
        lines = lines[1:]
    rest = "\n".join(lines)
    if not rest.strip():
        return ""
    return rest if parses(rest) else code


def _fence(line: str) -> bool:
    return _OPENING_FENCE.match(line) is not None


def parses(code: str) -> bool:
    """Whether `code` is Python (repository or model text too deep for the parser is not)."""
    try:
        ast.parse(code)
    except PARSE_ERRORS:
        return False
    return True
