"""Constrained tool calls through a JSON schema (`MODEL_CONSTRAINED_CALLS=true`).

`ToolCallFormat` wraps a LiteLLM model: when tools are offered, it adds
`response_format={"type": "json_schema", …}` with `tool_call.tool_call_schema` of the
offered tools. LiteLLM sends that to Ollama as `"format": <schema>` beside `"tools"`, and
to OpenAI-compatible servers as `response_format` (llama.cpp's server compiles it to a
grammar; vLLM uses guided decoding). The server then constrains the reply to exactly one
call of an offered tool with valid arguments. The catch (Ollama issues #8095, #11037):
with a schema set the model cannot write its native tool-call markup, so the call comes
back as JSON *content* and no `tool_calls`; `RobustModel` parses that content as the call.
The tools still reach the model's prompt through its template. Opt-in: plain native tool
calling stays the default, as it keeps the model on the format it was trained on and lets
it write prose.
"""

from __future__ import annotations

from typing import Any

from smolagents.models import ChatMessage, Model
from smolagents.tools import Tool

from lsp_agent.models.embedded.tool_grammar import tool_call_schema, tool_specs


def tool_call_response_format(tools: list[Tool]) -> dict[str, Any]:
    """An OpenAI-style `response_format` admitting one call of one of `tools`."""
    return {
        "type": "json_schema",
        "json_schema": {"name": "tool_call", "schema": tool_call_schema(tool_specs(tools))},
    }


class ToolCallFormat(Model):  # type: ignore[misc]
    """Adds the tool-call schema as `response_format` to every request that offers tools."""

    def __init__(self, inner: Model) -> None:
        super().__init__(model_id=getattr(inner, "model_id", None))
        self.inner = inner

    def generate(self, messages: list[ChatMessage | dict[str, Any]], **options: Any) -> ChatMessage:
        """`inner.generate` with the same options (smolagents passes them by keyword) and,
        when tools are offered and no format is asked, the tool-call schema as the format."""
        tools = options.get("tools_to_call_from")
        if tools and options.get("response_format") is None:
            options["response_format"] = tool_call_response_format(tools)
        reply: ChatMessage = self.inner.generate(messages, **options)
        return reply
