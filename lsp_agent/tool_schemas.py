"""Tool schemas as the model reads them: the provider's `tools` parameter, compact.

smolagents sends every argument with its description and a non-standard `"nullable": true`,
and an empty `"required": []` for tools without required arguments. A small model reads all
of it on every request. Here each argument is its name and its type (and its `enum`, if it
has one); whether it is optional is said once, by `required`. Argument
names say what they hold (`path`, `pattern`, `start_line`, `patch_id`), and the tool's
one-line description says the rest. The argument descriptions stay on the tools:
smolagents validates them, and our argument errors quote them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# smolagents' own mapping: "any" is sent as a string.
_WIRE_TYPES = {"any": "string"}


def compact_tool_schema(tool: Any) -> dict[str, Any]:
    """The OpenAI-style function schema of `tool` without per-argument prose."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, spec in dict(tool.inputs).items():
        kind = str(spec["type"])
        prop: dict[str, Any] = {"type": _WIRE_TYPES.get(kind, kind)}
        if "enum" in spec:
            prop["enum"] = list(spec["enum"])
        if "items" in spec:
            prop["items"] = spec["items"]
        properties[name] = prop
        if not spec.get("nullable"):
            required.append(name)
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": parameters,
        },
    }


def compact_tool_schemas(tools: Iterable[Any]) -> list[dict[str, Any]]:
    return [compact_tool_schema(tool) for tool in tools]
