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
cannot write. Values that depend on the path a call names (`propose_patch`'s `old`: the
lines of that file; `propose_function`'s `name`: its definitions) are spelled out for the
files the job works on (`FOCUS_KEY` of the choices: those the task names, then those read,
up to `MAX_SPELLED_PATHS`), one variant of the call per file, as the embedded model's call
writer picks `old` among the lines of the file: through llama-server Qwen2.5-Coder-1.5B
sent `old="average(values) / (len(values) + 1)"` for calc.py, whose line reads
`return sum(values) / (len(values) + 1)`, and, shown a proposal's text, took that text
for `old` (L6, L8); neither can be written then. Right after a refused `final_answer` the
schema leaves `final_answer` out, as the embedded grammar does (`tool_grammar.offered_after`);
a decode again of a read made for the third time leaves every reader out
(`left_out_tools`, `robust.fresh`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from smolagents.models import ChatMessage, Model
from smolagents.tools import Tool

from lsp_agent.models.embedded.tool_grammar import (
    MAX_CHOICES,
    PATH_KEY,
    offered_after,
    tool_call_schema,
    tool_specs,
)
from lsp_agent.models.messages import called_tools

FOCUS_KEY = "focus_paths"  # in the choices: the files whose path-bound values are spelled out
MAX_SPELLED_PATHS = 6


def tool_call_response_format(
    tools: list[Tool], choices: Mapping[str, Any] | None = None, history: Sequence[str] = ()
) -> dict[str, Any]:
    """An OpenAI-style `response_format` admitting one call of one of `tools`, its string
    arguments limited to `choices` (`tool_grammar.tool_specs`); not `final_answer` right
    after the calls `history` ended in one (it was refused: `tool_grammar.offered_after`)."""
    specs = offered_after(tool_specs(tools, choices=choices), history)
    schema = spelled_out(tool_call_schema(specs), choices or {})
    return {"type": "json_schema", "json_schema": {"name": "tool_call", "schema": schema}}


def spelled_out(schema: dict[str, Any], choices: Mapping[str, Any]) -> dict[str, Any]:
    """`schema` with the values that depend on a call's path (callables of `choices`)
    spelled out as enums for the files `choices[FOCUS_KEY]` names: a call of a tool with
    such an argument becomes one variant per file (its path, that file's values), and one
    for the other files, with the argument free (see the module's docstring)."""
    bound = {key: value for key, value in choices.items() if callable(value)}
    focus = list(dict.fromkeys(choices.get(FOCUS_KEY, ())))[:MAX_SPELLED_PATHS]
    if not bound or not focus:
        return schema
    calls = [
        variant
        for call in schema.get("oneOf", [schema])
        for variant in _per_path(call, focus, bound)
    ]
    return calls[0] if len(calls) == 1 else {"oneOf": calls}


def _per_path(
    call: dict[str, Any], focus: Sequence[str], bound: Mapping[str, Callable[..., Any]]
) -> list[dict[str, Any]]:
    """`call`'s variants: one per file of `focus` with its path-bound values as enums, then
    `call` itself for the files left (none when every file has its variant)."""
    properties = call["properties"]["arguments"]["properties"]
    paths = list(properties.get(PATH_KEY, {}).get("enum", ()))
    keys = [key for key in properties if key in bound]
    if not paths or not keys:
        return [call]
    variants, left = [], list(paths)
    for path in (p for p in focus if p in paths):
        spelled = {key: _values(bound[key], path) for key in keys}
        if not all(spelled.values()):
            continue  # nothing to offer (a file without lines, too many): left free
        variant = copy.deepcopy(call)
        own = variant["properties"]["arguments"]["properties"]
        own[PATH_KEY] = {"type": "string", "enum": [path]}
        own.update({key: {"type": "string", "enum": values} for key, values in spelled.items()})
        variants.append(variant)
        left.remove(path)
    if left:
        rest = copy.deepcopy(call)
        rest["properties"]["arguments"]["properties"][PATH_KEY]["enum"] = left
        variants.append(rest)
    return variants


def _values(values_of: Callable[..., Any], path: str) -> list[str]:
    """The values `values_of` gives for a call naming `path`, without blanks or repeats;
    none when there are more than `MAX_CHOICES`."""
    found = list(dict.fromkeys(str(v) for v in values_of({PATH_KEY: path}) if str(v).strip()))
    return found if len(found) <= MAX_CHOICES else []


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
