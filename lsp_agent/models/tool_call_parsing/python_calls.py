"""Python-call style tool calls, `name(arg="…", n=3)`: read with `ast`, literals only.

Nothing is ever evaluated: arguments must be literals (strings, numbers, lists, dicts, `True`,
`False`, `None`, and JSON's `true`/`false`/`null`), else the candidate is skipped.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection
from typing import Any

from lsp_agent.models.tool_call_parsing.lenient_json import scan_balanced

MAX_CANDIDATES = 50
SCAN_BUDGET_CHARS = 1_000_000
_CALL_START = re.compile(r"(?<![\w.])([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)\s*\(")
_NAMED_LITERALS = {"true": True, "false": False, "null": None, "none": None}

RawCall = tuple[str, dict[str, Any], tuple[Any, ...]]
"""(name, named arguments, positional arguments)"""


def find_python_calls(
    text: str, known_names: Collection[str] | None, *, strict: bool, max_calls: int
) -> list[RawCall]:
    """Calls in `text`. With `strict`, a call counts if it names a known tool or is the whole
    reply (fences aside); otherwise any well-formed call counts."""
    calls: list[RawCall] = []
    whole = _strip_fences(text)
    scanned = 0
    for attempt, match in enumerate(_CALL_START.finditer(text)):
        if attempt >= MAX_CANDIDATES or scanned > SCAN_BUDGET_CHARS or len(calls) >= max_calls:
            break
        name = match.group(1).rsplit(".", 1)[-1]
        end, stack, _ = scan_balanced(text, match.end() - 1, "{[(")
        scanned += end - match.start()
        segment = text[match.start() : end]
        known = known_names is not None and name in known_names
        if stack or not (known or not strict or segment.strip() == whole):
            continue
        call = parse_python_call(segment)
        if call is not None:
            calls.append(call)
    return calls


def _strip_fences(text: str) -> str:
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = re.sub(r"^```\w*", "", stripped)
    if stripped.endswith("```"):
        stripped = stripped[:-3]
    return stripped.strip()


def parse_python_call(segment: str) -> RawCall | None:
    """`name(...)` or `a.b.name(...)` with literal arguments, else None."""
    try:
        tree = ast.parse(segment.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    node = tree.body
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    while isinstance(func, ast.Attribute):
        func = ast.Name(id=func.attr) if not isinstance(func.value, ast.Call) else func.value
    if not isinstance(func, ast.Name):
        return None
    try:
        positional = tuple(_literal(arg) for arg in node.args)
        named = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                return None
            named[keyword.arg] = _literal(keyword.value)
    except (_NotLiteral, RecursionError):
        return None
    return func.id, named, positional


class _NotLiteral(Exception):
    pass


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bytes | complex) or node.value is Ellipsis:
            raise _NotLiteral
        return node.value
    if isinstance(node, ast.Name) and node.id.lower() in _NAMED_LITERALS:
        return _NAMED_LITERALS[node.id.lower()]
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return [_literal(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise _NotLiteral
        return {
            str(_literal(k)): _literal(v)
            for k, v in zip(node.keys, node.values, strict=True)
            if k is not None
        }
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _literal(node.operand)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return -value if isinstance(node.op, ast.USub) else value
    raise _NotLiteral
