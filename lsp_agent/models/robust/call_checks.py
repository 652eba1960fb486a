"""Check a tool call against the tools offered: names, arguments, easy type repairs."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from typing import Any

from smolagents.tools import Tool

from lsp_agent.models.tool_call_parsing import ParsedCall, map_positional


def _signature(tool: Tool) -> str:
    parts = []
    for name, spec in tool.inputs.items():
        optional = ", optional" if spec.get("nullable") else ""
        parts.append(f"{name} ({spec.get('type', 'any')}{optional})")
    return ", ".join(parts) or "no arguments"


_COERCE: dict[str, Callable[[str], Any]] = {
    "integer": lambda s: int(s.strip()),
    "number": lambda s: float(s.strip()),
    "boolean": lambda s: {"true": True, "false": False}[s.strip().lower()],
}


def _coerce_types(args: dict[str, Any], tool: Tool, notes: list[str]) -> dict[str, Any]:
    out = dict(args)
    for key, value in args.items():
        wanted = tool.inputs[key].get("type")
        if isinstance(value, str) and isinstance(wanted, str) and wanted in _COERCE:
            try:
                out[key] = _COERCE[wanted](value)
                notes.append(f"read {key}={value!r} as {wanted}")
            except (ValueError, KeyError):
                pass
        elif wanted == "string" and isinstance(value, int | float) and not isinstance(value, bool):
            out[key] = str(value)
            notes.append(f"read {key}={value!r} as string")
    return out


def check_call(call: ParsedCall, tools: Mapping[str, Tool], notes: list[str]) -> ParsedCall | str:
    """The call with names checked and types eased, or the problem in one sentence."""
    tool = tools.get(call.name)
    if tool is None:
        close = difflib.get_close_matches(call.name, list(tools), n=3, cutoff=0.4)
        hint = f"; closest: {', '.join(close)}" if close else ""
        return f"there is no tool `{call.name[:80]}`{hint}. Tools: {', '.join(tools)}"
    if call.argument_error:
        return f"the arguments of {tool.name} could not be read: {call.argument_error}"
    call = map_positional(call, {call.name: list(tool.inputs)}, notes)
    if call.positional:
        return f"give {tool.name}'s arguments by name: {_signature(tool)}"
    args = dict(call.arguments)
    if tool.name == "final_answer" and len(args) == 1 and "answer" not in args:
        (wrong,) = args
        args = {"answer": args[wrong]}
        notes.append(f"read final_answer's `{wrong}` as `answer`")
    problems = []
    for key in (k for k in args if k not in tool.inputs):
        close = difflib.get_close_matches(key, list(tool.inputs), n=1, cutoff=0.5)
        problems.append(
            f"{tool.name} has no argument `{key[:60]}`"
            + (f" (did you mean `{close[0]}`?)" if close else "")
        )
    missing = [k for k, spec in tool.inputs.items() if not spec.get("nullable") and k not in args]
    if missing:
        problems.append(f"{tool.name} needs {', '.join(missing)}")
    if problems:
        return "; ".join(problems) + f". Valid arguments: {_signature(tool)}"
    return ParsedCall(tool.name, _coerce_types(args, tool, notes))
