"""Constrained tool calls through a JSON schema (`MODEL_CONSTRAINED_CALLS=true`).

`ToolCallFormat` wraps a LiteLLM model: when tools are offered, it adds
`response_format={"type": "json_schema", …}` with `tool_call.tool_call_schema` of the
offered tools. LiteLLM sends that to Ollama as `"format": <schema>` beside `"tools"`, and
to OpenAI-compatible servers as `response_format` (llama.cpp's server compiles it to a
grammar; vLLM uses guided decoding). The server then constrains the reply to exactly one
call of an offered tool with valid arguments. The catch (Ollama issues #8095, #11037):
with a schema set the model cannot write its native tool-call markup, so the call comes
back as JSON *content* and no `tool_calls`; `RobustModel` parses that content as the call.
The tools still reach the model's prompt through its template. On by default
(`MODEL_CONSTRAINED_CALLS=false` turns it off): through llama-server, Qwen2.5-Coder-1.5B
passed 17 of 22 suite runs with the schema and 14 without, in a third of the time (without
it, it wrote calls as fenced JSON after empty tags, triple quotes unescaped in strings, and
empty replies); a server that refuses the schema gets weaker forms (`capabilities`).

Like the embedded model's grammar, the schema takes the job's `argument_choices` where they
are fixed lists (the workspace's files for path arguments, the run's patch ids), asked
afresh for every request: through llama-server, Qwen2.5-Coder-1.5B read a wrong path again
after the hint that named the right one (L7), which a schema with the files as an enum
cannot write. Right after a refused `final_answer` the schema leaves `final_answer` out, as
the embedded grammar does (`tool_grammar.offered_after`); a decode again of a read made
for the third time leaves every reader out (`left_out_tools`, `robust.fresh`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from smolagents.models import ChatMessage, Model
from smolagents.tools import Tool

from lsp_agent.models.embedded.tool_grammar import offered_after, tool_call_schema, tool_specs
from lsp_agent.models.messages import called_tools


def tool_call_response_format(
    tools: list[Tool], choices: Mapping[str, Any] | None = None, history: Sequence[str] = ()
) -> dict[str, Any]:
    """An OpenAI-style `response_format` admitting one call of one of `tools`, its string
    arguments limited to `choices` (`tool_grammar.tool_specs`); not `final_answer` right
    after the calls `history` ended in one (it was refused: `tool_grammar.offered_after`)."""
    specs = offered_after(tool_specs(tools, choices=choices), history)
    schema = tool_call_schema(specs)
    return {"type": "json_schema", "json_schema": {"name": "tool_call", "schema": schema}}


class ToolCallFormat(Model):  # type: ignore[misc]
    """Adds the tool-call schema as `response_format` to every request that offers tools."""

    def __init__(self, inner: Model) -> None:
        super().__init__(model_id=getattr(inner, "model_id", None))
        self.inner = inner
        # what arguments may name (`RobustModel.offer_argument_choices`), asked per request
        self.argument_choices: Callable[[], Mapping[str, Any]] | None = None
        # tools a decode again leaves out of the schema (`robust.fresh.leaving_out`)
        self.left_out_tools: frozenset[str] = frozenset()

    def generate(self, messages: list[ChatMessage | dict[str, Any]], **options: Any) -> ChatMessage:
        """`inner.generate` with the same options (smolagents passes them by keyword) and,
        when tools are offered and no format is asked, the tool-call schema as the format."""
        tools = options.get("tools_to_call_from")
        if tools and options.get("response_format") is None:
            choices = self.argument_choices() if self.argument_choices is not None else None
            offered = [t for t in tools if t.name not in self.left_out_tools] or tools
            options["response_format"] = tool_call_response_format(
                offered, choices, called_tools(messages)
            )
        reply: ChatMessage = self.inner.generate(messages, **options)
        return reply
