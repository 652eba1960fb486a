"""Input validation in the wrapper: names, gentle type coercion, sizes and paths.

Small models send `"10"` for an integer or a number for a string; those are coerced.
Unknown or missing arguments, oversized inputs and unsafe paths are refused with the
valid names or a recovery hint, before anything runs.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any

from safety.errors import ErrorType
from safety.input_validation import validate_input_size
from safety.validation import validate_path
from tools.base import ToolFailure

if TYPE_CHECKING:
    from tools.base import AgentTool, ToolContext

_TRUE = {"true", "yes", "1"}
_FALSE = {"false", "no", "0"}
_PYTHON_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
}


def _signature(tool: AgentTool) -> str:
    parts = []
    for name, spec in tool.inputs.items():
        optional = "?" if spec.get("nullable") else ""
        parts.append(f"{name}{optional}: {spec['type']}")
    return f"{tool.name}({', '.join(parts)})"


def _coerce(tool: AgentTool, name: str, value: Any) -> Any:
    expected = tool.inputs[name]["type"]
    if value is None:
        return None
    if expected == "string" and type(value) is str:
        return value  # the common case
    if expected == "string" and isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    if expected in ("integer", "number") and isinstance(value, str):
        text = value.strip()
        try:
            return int(text) if expected == "integer" else float(text)
        except ValueError:
            pass
    if expected == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    if expected == "boolean" and isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    wanted = _PYTHON_TYPES.get(expected)
    if wanted is not None and not isinstance(value, wanted):
        raise ToolFailure(
            ErrorType.INVALID_ARGUMENT,
            f"Argument {name!r} must be a {expected}, not {type(value).__name__}.",
            f"Call it as {_signature(tool)}.",
            argument=name,
        )
    return value


def check_arguments(
    tool: AgentTool, arguments: dict[str, Any], context: ToolContext
) -> dict[str, Any]:
    """Return the arguments, coerced; raise ToolFailure/ValidationError when they are bad."""
    unknown = [name for name in arguments if name not in tool.inputs]
    if unknown:
        name = unknown[0]
        close = difflib.get_close_matches(name, list(tool.inputs), n=1)
        guess = f" Did you mean {close[0]!r}?" if close else ""
        raise ToolFailure(
            ErrorType.INVALID_ARGUMENT,
            f"{tool.name} has no argument {name!r}.{guess}",
            f"Call it as {_signature(tool)}.",
            valid_arguments=list(tool.inputs),
        )
    missing = [
        name
        for name, spec in tool.inputs.items()
        if not spec.get("nullable") and arguments.get(name) is None
    ]
    if missing:
        raise ToolFailure(
            ErrorType.INVALID_ARGUMENT,
            f"{tool.name} needs the argument {missing[0]!r}.",
            f"Call it as {_signature(tool)}.",
            valid_arguments=list(tool.inputs),
        )
    checked = {name: _coerce(tool, name, value) for name, value in arguments.items()}
    limits = context.limits
    for name, value in checked.items():
        if isinstance(value, str):
            validate_input_size(
                value,
                max_chars=limits.max_input_chars,
                max_lines=limits.max_input_lines,
                what=f"argument {name!r}",
            )
    for name in tool.path_inputs:
        value = checked.get(name)
        if isinstance(value, str):
            validate_path(context.workspace.root, value)
    return checked
