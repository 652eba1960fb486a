"""Tool schemas as the model reads them: the provider's `tools` parameter, compact.

smolagents sends every argument with its description and a non-standard `"nullable": true`,
and an empty `"required": []` for tools without required arguments. A small model reads all
of it on every request. Here smolagents' own schema is kept (types, `anyOf` folded, enums,
`required`) and those three are dropped: whether an argument is optional is said once, by
`required`; argument names say what they hold (`path`, `pattern`, `start_line`,
`patch_id`), and the tool's one-line description says the rest. The argument descriptions
stay on the tools: smolagents validates them, and our argument errors quote them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from smolagents.models import get_tool_json_schema

# Per-argument keys the model does not need: the prose, and the flag `required` already says.
_DROPPED_ARGUMENT_KEYS = ("description", "nullable")


def compact_tool_schema(tool: Any) -> dict[str, Any]:
    """smolagents' function schema of `tool` (types, enums, `required`) without the prose."""
    schema: dict[str, Any] = get_tool_json_schema(tool)  # works on a deep copy of the inputs
    parameters = schema["function"]["parameters"]
    for prop in parameters["properties"].values():
        for key in _DROPPED_ARGUMENT_KEYS:
            prop.pop(key, None)
    if not parameters["required"]:
        del parameters["required"]
    return schema


def compact_tool_schemas(tools: Iterable[Any]) -> list[dict[str, Any]]:
    return [compact_tool_schema(tool) for tool in tools]
