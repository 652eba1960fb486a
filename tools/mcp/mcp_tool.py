"""One MCP tool as an agent tool: named so it cannot shadow a built-in, checked against its
own `inputSchema`, approved unless its server is trusted, and failing as observations.

The wrapper (`InstrumentedTool`) does the rest as for every tool: argument names and
sizes, the approval question, truncation, the error schema and the `tool_wrapped.<name>`
span, which carries the server's name (`lsp_agent.mcp.server`).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Collection
from typing import Any

import jsonschema
from mcp import types as mcp_types

from safety.approvals import ApprovalKind
from safety.errors import ErrorType
from tools.base import AgentTool, ApprovalAsk, ToolContext, ToolFailure
from tools.mcp.config import McpServerSpec
from tools.mcp.connection import McpConnection, McpServerError

PREFIX = "mcp_"
MAX_NAME = 64
MAX_DESCRIPTION = 200
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")
_JSON_TYPES = {"string", "integer", "number", "boolean", "array", "object"}


def agent_tool_name(server: str, tool: str, taken: Collection[str] = ()) -> str:
    """`mcp_<server>_<tool>`: a Python identifier no built-in tool has, and none in `taken`
    (`a-b`/`add` and `a_b`/`add` would both be `mcp_a_b_add`: the second gets `_2`)."""
    base = (PREFIX + _UNSAFE.sub("_", f"{server}_{tool}"))[:MAX_NAME]
    name, number = base, 1
    while name in taken:
        number += 1
        suffix = f"_{number}"
        name = base[: MAX_NAME - len(suffix)] + suffix
    return name


def agent_inputs(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """smolagents `inputs` from a JSON schema's top-level properties."""
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    inputs: dict[str, dict[str, Any]] = {}
    for name, prop in properties.items():
        spec = prop if isinstance(prop, dict) else {}
        kind = spec.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "any")
        entry: dict[str, Any] = {
            "type": kind if kind in _JSON_TYPES else "any",
            "description": str(spec.get("description") or name)[:MAX_DESCRIPTION],
        }
        if name not in required:
            entry["nullable"] = True
        inputs[str(name)] = entry
    return inputs


class McpTool(AgentTool):
    """An MCP server's tool, offered to the model under `agent_tool_name`."""

    skip_forward_signature_validation = True
    output_type = "string"
    name = "mcp_tool"
    description = "A tool of an MCP server."

    def __init__(
        self,
        context: ToolContext,
        connection: McpConnection,
        tool: mcp_types.Tool,
        cancel: threading.Event | None = None,
        name: str | None = None,
    ) -> None:
        self.connection = connection
        self.spec: McpServerSpec = connection.spec
        self.mcp_name = tool.name
        self.schema: dict[str, Any] = dict(tool.inputSchema or {"type": "object"})
        self.cancel = cancel
        self.name = name or agent_tool_name(self.spec.name, tool.name)
        summary = " ".join((tool.description or tool.name).split())[:MAX_DESCRIPTION]
        self.description = f"[MCP {self.spec.name}] {summary}"
        self.inputs = agent_inputs(self.schema)
        super().__init__(context)

    def span_attributes(self) -> dict[str, str]:
        return {"lsp_agent.mcp.server": self.spec.name, "lsp_agent.mcp.tool": self.mcp_name}

    def approval_for(self, arguments: dict[str, Any]) -> ApprovalAsk | None:
        if self.spec.trust:
            return None
        shown = json.dumps(_given(arguments), sort_keys=True, ensure_ascii=False)
        return ApprovalAsk(
            kind=ApprovalKind.MCP_CALL,
            content=f"mcp {self.spec.name} {self.mcp_name} {shown}",
            summary=f"Call `{self.mcp_name}` of MCP server `{self.spec.name}` with {shown}",
            details=f'MCP server {self.spec.name!r} is not marked "trust": true in MCP_CONFIG.',
        )

    def forward(self, **arguments: Any) -> str:
        given = _given(arguments)
        try:
            jsonschema.validate(given, self.schema)
        except jsonschema.ValidationError as exc:
            where = ".".join(str(p) for p in exc.absolute_path) or "the arguments"
            raise ToolFailure(
                ErrorType.INVALID_ARGUMENT,
                f"{self.name}: {where}: {exc.message}",
                f"Call it with arguments that match: {json.dumps(self.schema)[:300]}",
            ) from None
        except jsonschema.SchemaError:
            pass  # the server's schema is broken; let the server judge the call
        try:
            result = self.connection.call(self.mcp_name, given, self.cancel)
        except McpServerError as exc:
            raise ToolFailure(
                ErrorType.EXTERNAL_TOOL_ERROR,
                str(exc),
                "Do not call this MCP server again in this task; use the built-in tools, "
                "or finish with final_answer and say what was unavailable.",
                server=self.spec.name,
            ) from None
        text = _text_of(result)
        if result.isError:
            raise ToolFailure(
                ErrorType.EXTERNAL_TOOL_ERROR,
                f"{self.name} failed: {text or 'no details'}",
                "Check the arguments against the tool's description, or try another way.",
                server=self.spec.name,
            )
        return text or "(no output)"


def _given(arguments: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in arguments.items() if v is not None}


def _text_of(result: mcp_types.CallToolResult) -> str:
    parts = []
    for item in result.content:
        if isinstance(item, mcp_types.TextContent):
            parts.append(item.text)
        else:
            parts.append(f"[{item.type} content not shown]")
    if not parts and result.structuredContent is not None:
        parts.append(json.dumps(result.structuredContent, ensure_ascii=False))
    return "\n".join(parts)
