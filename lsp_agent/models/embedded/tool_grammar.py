"""A fast GBNF grammar that admits exactly one call to one of the offered tools.

The call is written in one fixed shape, which the model also sees for its past calls:

    {"name": "read_file", "arguments": {"path": "calc.py", "start_line": 3}}

Tool names are literal alternatives, argument keys come in the tool's declared order
(optional ones may be left out; `nullable` counts as optional; null is never written),
separators are exactly `", "` and `": "` (no free whitespace: every optional whitespace
doubles the grammar stacks llama.cpp tracks per vocabulary token), and strings are bounded
and escaped only as `json.dumps(..., ensure_ascii=False)` escapes them (non-ASCII text is
written as it is), so a call replayed through a chat template's `tojson` is byte for byte
the call the model wrote.
Values respect the declared types: strings, integers, numbers, booleans. `choices` turn
string arguments into enums (strong hints for tiny models): key `"path"` applies to every
workspace-path argument (our tools' `path_inputs`), any other key to arguments of that
name (e.g. `"patch_id"`: the ids proposed so far). An over-long list leaves the argument a
free (bounded) string; an empty list leaves out the tools that need the argument (no patch
id yet: no `apply_patch`), since any call of theirs could only fail.
`check_call()` is the same contract in pure Python, for tests and for reading a
constrained reply; `tool_call_schema()` its JSON-schema twin (Ollama's `format`).

Compared with `LlamaGrammar.from_json_schema` of the equivalent `oneOf` schema, this grammar
has no optional whitespace rules and no per-tool `{...}` object with free key order.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CALL_PREFIX",
    "MIN_ANSWER_CHARS",
    "ArgumentSpec",
    "ToolSpec",
    "call_head",
    "call_text",
    "check_call",
    "tool_call_grammar",
    "tool_call_schema",
    "tool_specs",
    "value_grammar",
]

SCALAR_TYPES = ("string", "integer", "number", "boolean")
DEFAULT_MAX_STRING_CHARS = 1500
DEFAULT_MAX_PATH_CHARS = 160
# A final answer is a short summary; tiny models otherwise fill the whole string budget
# with a repeated phrase (SmolLM2-135M: 1,486 characters of "applied to p1 (calc.py)").
MAX_ANSWER_CHARS = 300
# ...and at least a phrase: SmolLM2-135M otherwise answers with the bare patch id `p1`, which
# the runtime refuses (it tells the user nothing), and then tends to wander off instead of
# answering again. The price: this model cannot answer in under 10 characters (`42`). A real
# model does not need it (Qwen2.5-Coder-1.5B, held to 10, padded "John Doe" with "}}}}"):
# `tool_specs(min_answer_chars=1)`.
MIN_ANSWER_CHARS = 10
MAX_CHOICES = 300
PATH_KEY = "path"


@dataclass(frozen=True)
class ArgumentSpec:
    """One argument of a tool as the grammar constrains it."""

    name: str
    type: str  # one of SCALAR_TYPES, or "json" for anything else
    required: bool
    choices: tuple[str, ...] = ()  # string arguments only: the value must be one of these
    max_chars: int = DEFAULT_MAX_STRING_CHARS
    min_chars: int = 0


@dataclass(frozen=True)
class ToolSpec:
    name: str
    arguments: tuple[ArgumentSpec, ...]
    # None: no words before the call; else the model's thought, then each lead and its words
    thought_leads: tuple[str, ...] | None = None
    read_only: bool = False  # the tool only reads


def _path_inputs(tool: Any) -> tuple[str, ...]:
    """Workspace-path arguments: `path_inputs` of our tools (or of the tool they wrap)."""
    for owner in (tool, getattr(tool, "inner", None)):
        names = getattr(owner, "path_inputs", None)
        if isinstance(names, tuple | list):
            return tuple(str(n) for n in names)
    return ("path",) if "path" in getattr(tool, "inputs", {}) else ()


def _declared(tool: Any, name: str, default: Any) -> Any:
    """An attribute our tools declare (on the tool, or on the tool it wraps)."""
    for owner in (tool, getattr(tool, "inner", None)):
        value = getattr(owner, name, None)
        if value is not None:
            return value
    return default


def _leads(value: Any) -> tuple[str, ...] | None:
    return None if value is None else tuple(str(lead) for lead in value)


def _argument_type(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type", "string")
    if kind == "any":
        return "string"
    if isinstance(kind, list):  # e.g. ["string", "null"]
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else "json"
    return kind if kind in SCALAR_TYPES else "json"


def tool_specs(
    tools: Sequence[Any],
    *,
    choices: Mapping[str, Any] | None = None,
    max_string_chars: int = DEFAULT_MAX_STRING_CHARS,
    max_path_chars: int = DEFAULT_MAX_PATH_CHARS,
    min_answer_chars: int = MIN_ANSWER_CHARS,
) -> list[ToolSpec]:
    """Specs of smolagents tools (`name` and `inputs`), with `choices` as described above.

    A tool with a required argument whose choices are an empty list cannot be called well
    (`apply_patch` before any patch was proposed) and is left out."""
    given = choices or {}
    # callables (values that depend on other arguments) are the call writer's business
    enums = {key: _enum(values) for key, values in given.items() if not callable(values)}
    specs = []
    for tool in tools:
        paths = _path_inputs(tool)
        arguments = []
        for name, schema in dict(tool.inputs).items():
            is_path = name in paths
            is_answer = tool.name == "final_answer"
            kind = _argument_type(schema)
            key = PATH_KEY if is_path else name
            enum = enums.get(key, ()) if kind == "string" else ()
            arguments.append(
                ArgumentSpec(
                    name=name,
                    type=kind,
                    required=not schema.get("nullable", False),
                    choices=enum or tuple(str(v) for v in schema.get("enum", ()) or ()),
                    max_chars=max_path_chars
                    if is_path
                    else min(max_string_chars, MAX_ANSWER_CHARS)
                    if is_answer
                    else max_string_chars,
                    min_chars=min_answer_chars if is_answer and kind == "string" else 0,
                )
            )
        impossible = any(
            a.required and a.type == "string" and key in given and not given[key]
            for a, key in ((a, PATH_KEY if a.name in paths else a.name) for a in arguments)
        )
        if not impossible:
            specs.append(
                ToolSpec(
                    str(tool.name),
                    tuple(arguments),
                    thought_leads=_leads(_declared(tool, "thought_leads", None)),
                    read_only=_declared(tool, "read_only", False) is True,
                )
            )
    return specs


def _enum(values: Sequence[str]) -> tuple[str, ...]:
    unique = tuple(dict.fromkeys(str(v) for v in values))
    return unique if len(unique) <= MAX_CHOICES else ()  # too many to help


def _literal(text: str) -> str:
    """A GBNF string literal matching `text` exactly."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t") + '"'


def _json_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=True)


def _value_rule(argument: ArgumentSpec) -> str:
    if argument.choices:
        return "(" + " | ".join(_literal(_json_string(c)) for c in argument.choices) + ")"
    if argument.type == "string":
        return f'"\\"" char{{{argument.min_chars},{argument.max_chars}}} "\\""'
    return {"integer": "integer", "number": "number", "boolean": "boolean"}.get(
        argument.type, "json-value"
    )


def _arguments_rules(rule: str, arguments: Sequence[ArgumentSpec]) -> tuple[str, list[str]]:
    """Keys in declared order; optional ones may be skipped; `", "` between emitted ones.

    Returns the expression for the whole argument list and the helper rules it uses (one
    per (position, something-emitted-before) pair, so optional arguments never multiply).
    """
    pieces = [_literal(_json_string(a.name) + ": ") + " " + _value_rule(a) for a in arguments]
    helpers: dict[str, str] = {}

    def after(index: int, emitted: bool) -> str:
        if index == len(arguments):
            return '""'
        name = f"{rule}-{index}{'m' if emitted else 'f'}"
        if name not in helpers:
            helpers[name] = ""  # reserve: the body refers to later positions only
            lead = '", " ' if emitted else ""
            take = f"{lead}{pieces[index]} {after(index + 1, True)}"
            body = take if arguments[index].required else f"{take} | {after(index + 1, emitted)}"
            helpers[name] = f"{name} ::= {body}"
        return name

    return after(0, False), list(helpers.values())


def _rule_name(tool_name: str) -> str:
    return "call-" + "".join(c if c.isalnum() else "-" for c in tool_name).lower()


COMMON_RULES = r"""
char ::= [^"\\\x00-\x1f] | "\\" (["\\bfnrt] | "u00" [01] [0-9a-fA-F])
integer ::= "-"? ("0" | [1-9] [0-9]{0,8})
number ::= integer ("." [0-9]{1,8})?
boolean ::= "true" | "false"
json-value ::= "\"" char{0,400} "\"" | number | boolean | "null" | json-array | json-object
json-array ::= "[" (json-value (", " json-value)*)? "]"
json-object ::= "{" (json-key json-value (", " json-key json-value)*)? "}"
json-key ::= "\"" char{0,80} "\": "
"""


CALL_PREFIX = '{"name": "'


def tool_call_grammar(specs: Sequence[ToolSpec]) -> str:
    """GBNF for `{"name": "<tool>", "arguments": {...}}`, one of `specs`, nothing else."""
    if not specs:
        raise ValueError("a tool-call grammar needs at least one tool")
    names = [_rule_name(s.name) for s in specs]
    if len(set(names)) != len(names):
        raise ValueError(f"tool names collide in the grammar: {[s.name for s in specs]}")
    lines = [f"root ::= {_literal(CALL_PREFIX)} (" + " | ".join(names) + ') "}}"']
    for spec, rule in zip(specs, names, strict=True):
        head = _literal(f'{spec.name}", "arguments": {{')
        expression, helpers = _arguments_rules(rule, spec.arguments)
        lines.append(f"{rule} ::= {head} {expression}")
        lines.extend(helpers)
    return "\n".join(lines) + "\n" + COMMON_RULES.lstrip("\n")


def _argument_schema(argument: ArgumentSpec) -> dict[str, Any]:
    if argument.choices:
        return {"type": "string", "enum": list(argument.choices)}
    if argument.type == "string":
        schema: dict[str, Any] = {"type": "string", "maxLength": argument.max_chars}
        if argument.min_chars:
            schema["minLength"] = argument.min_chars
        return schema
    if argument.type == "json":
        return {}
    return {"type": argument.type}


def tool_call_schema(specs: Sequence[ToolSpec]) -> dict[str, Any]:
    """The JSON-schema twin of `tool_call_grammar` (for servers that take a schema: Ollama).

    Tool names are one-value enums (wider support than `const`), arguments are closed
    objects with their required keys; key order and whitespace are the server's business.
    """
    if not specs:
        raise ValueError("a tool-call schema needs at least one tool")
    calls = []
    for spec in specs:
        arguments = {
            "type": "object",
            "properties": {a.name: _argument_schema(a) for a in spec.arguments},
            "required": [a.name for a in spec.arguments if a.required],
            "additionalProperties": False,
        }
        calls.append(
            {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "enum": [spec.name]},
                    "arguments": arguments,
                },
                "required": ["name", "arguments"],
                "additionalProperties": False,
            }
        )
    return calls[0] if len(calls) == 1 else {"oneOf": calls}


def call_head(name: str, opener: str = CALL_PREFIX) -> str:
    """A call's text up to its arguments: `{"name": "<name>", "arguments": {` (after
    `opener`, which ends with `{"name": "`)."""
    return f'{opener}{name}", "arguments": {{'


# What may follow a string value's closing quote in one token: tokenizers merge the quote
# with the call's next characters (Qwen2.5: `"}}`, `"}}\n`, `",`, `"},`).
STRING_TAIL = 'tail ::= [,}] [ ,}\\n"]{0,3}'


def value_grammar(argument: ArgumentSpec, lead: str = "", *, tail: bool = False) -> str:
    """GBNF for one argument's value alone (the same rule as in `tool_call_grammar`), after
    the text `lead`. With `tail`, a string value may run on into the call's next characters
    (`STRING_TAIL`), so a token that closes the string and the call at once is not refused:
    refused, it left the model only string characters, and Qwen2.5-Coder-1.5B wrote the
    `}}` it meant into the string and ran on (`"calc}} a short summary: …"`). The writer
    keeps the value and drops the rest (`call_writer`)."""
    start = f"{_literal(lead)} " if lead else ""
    value = _value_rule(argument)
    if tail and argument.type == "string" and not argument.choices:
        return f"root ::= {start}{value} tail?\n{STRING_TAIL}\n" + COMMON_RULES.lstrip("\n")
    return f"root ::= {start}{value}\n" + COMMON_RULES.lstrip("\n")


def call_text(name: str, arguments: Mapping[str, Any]) -> str:
    """A call written exactly as the grammar writes it (for replaying past calls)."""
    return json.dumps({"name": name, "arguments": dict(arguments)}, ensure_ascii=False)


def _type_problem(argument: ArgumentSpec, value: Any) -> str | None:
    expected = argument.type
    if expected == "string":
        if not isinstance(value, str):
            return f"`{argument.name}` must be a string"
        if argument.choices and value not in argument.choices:
            return f"`{argument.name}` must be one of {list(argument.choices)[:10]}"
        if len(value) > argument.max_chars:
            return f"`{argument.name}` is longer than {argument.max_chars} characters"
        if len(value) < argument.min_chars:
            return f"`{argument.name}` is shorter than {argument.min_chars} characters"
    elif expected == "integer" and (isinstance(value, bool) or not isinstance(value, int)):
        return f"`{argument.name}` must be an integer"
    elif expected == "number" and (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (isinstance(value, float) and not math.isfinite(value))
    ):
        return f"`{argument.name}` must be a number"
    elif expected == "boolean" and not isinstance(value, bool):
        return f"`{argument.name}` must be true or false"
    return None


def check_call(text: str, specs: Sequence[ToolSpec]) -> tuple[str, dict[str, Any]] | str:
    """`(name, arguments)` when `text` is one valid call of `specs`, else what is wrong."""
    try:
        call = json.loads(text)
    except ValueError as exc:
        return f"not JSON: {exc}"
    if not isinstance(call, dict) or list(call) != ["name", "arguments"]:
        return 'not an object with exactly "name" and "arguments"'
    by_name = {s.name: s for s in specs}
    spec = by_name.get(call["name"]) if isinstance(call["name"], str) else None
    if spec is None:
        return f"unknown tool {call['name']!r}"
    arguments = call["arguments"]
    if not isinstance(arguments, dict):
        return '"arguments" is not an object'
    known = [a.name for a in spec.arguments]
    unknown = [k for k in arguments if k not in known]
    if unknown:
        return f"unknown arguments {unknown} for {spec.name}"
    if [k for k in known if k in arguments] != list(arguments):
        return f"arguments of {spec.name} out of order"
    for argument in spec.arguments:
        if argument.name not in arguments:
            if argument.required:
                return f"missing required argument `{argument.name}` of {spec.name}"
            continue
        problem = _type_problem(argument, arguments[argument.name])
        if problem:
            return problem
    return spec.name, arguments


def offered_after(specs: Sequence[ToolSpec], history: Sequence[str]) -> list[ToolSpec]:
    """The tools a reply after the calls `history` may call: all of them, but not
    `final_answer` right after a `final_answer` (a job goes on after one only when the
    answer was refused, and a refusal asks for a tool first). Told that "The owner named in
    the file is [owner_name]" holds a placeholder and to find the value with a tool,
    Qwen2.5-Coder-1.5B gave the same answer three times, each decoded again hotter, until
    the step limit (L4); the repeat penalty lowered the odds of the answer, not enough."""
    if not answer_refused(history) or all(s.name == "final_answer" for s in specs):
        return list(specs)
    return [s for s in specs if s.name != "final_answer"]


def answer_refused(history: Sequence[str]) -> bool:
    """Whether the last of the calls `history` was a `final_answer` (the job went on after
    it, so it was refused)."""
    return bool(history) and history[-1] == "final_answer"
