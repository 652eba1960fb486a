"""Find tool calls that a model wrote as text, repairing common damage. Pure; never raises.

Accepted forms: JSON, fenced or bare (`{"name", "arguments"}`, `{"tool", "args"}`,
`{"function": {"name", "arguments"}}`, `{"action", "action_input"}`, `{"final_answer": X}`,
`{"answer": X}` (a final answer), lists of calls, `{"tool_calls": [...]}`), Qwen/Hermes
`<tool_call>…</tool_call>` blocks, Python-call style `name(arg="…", n=3)` (read with `ast`,
literals only, never evaluated), and a leading `Final Answer:`. Repairs: single quotes,
trailing commas, unquoted keys, Python `True/False/None`, raw newlines in strings, arguments
given as a JSON string, missing closing brackets, text around the call, `functions.` name
prefixes, positional arguments.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lsp_agent.models.tool_call_parsing.lenient_json import (
    loads_lenient,
    next_opener,
    scan_balanced,
)
from lsp_agent.models.tool_call_parsing.python_calls import find_python_calls

MAX_PARSE_CHARS = 200_000
MAX_CANDIDATES = 50
MAX_CALLS = 10
NAME_KEYS = ("name", "tool", "tool_name", "function", "action", "function_name")
ARGUMENT_KEYS = ("arguments", "args", "parameters", "params", "input", "action_input", "tool_input")
NAME_PREFIXES = ("functions.", "tools.", "default_api.", "function.")
_TOOL_TAG = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL | re.IGNORECASE)
_FINAL_PREFIX = re.compile(
    r"^\s*\**\s*final[ _]answer\s*\**\s*:\s*\**\s*(.+)$", re.DOTALL | re.IGNORECASE
)
SCAN_BUDGET_CHARS = 1_000_000
MAX_MISSING_CLOSERS = 6

ToolInputs = Mapping[str, Sequence[str]]
"""Tool name -> its argument names in order (used for positional arguments and name checks)."""


@dataclass(frozen=True)
class ParsedCall:
    """One tool call: `arguments` by name; `positional` holds values given without a name;
    `argument_error` says why the arguments could not be read (they are then empty)."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    positional: tuple[Any, ...] = ()
    argument_error: str | None = None


@dataclass(frozen=True)
class ParseSuccess:
    calls: tuple[ParsedCall, ...]
    repairs: tuple[str, ...] = ()
    source: str = "json"


@dataclass(frozen=True)
class ParseFailure:
    reason: str


ParseResult = ParseSuccess | ParseFailure


def parse_tool_calls_from_text(text: str, tools: ToolInputs | None = None) -> ParseResult:
    """Every tool call in `text`, or a short reason why there is none."""
    if not text or not text.strip():
        return ParseFailure("the reply was empty")
    if len(text) > MAX_PARSE_CHARS:
        return ParseFailure(f"the reply was too long ({len(text)} characters)")
    notes: list[str] = []
    blocks = [m.group(1) for m in _TOOL_TAG.finditer(text)]
    if blocks:
        calls = [c for block in blocks for c in _calls_in(block, tools, notes, strict_python=False)]
        if calls:
            return _success(calls, tools, notes, "tool_call_tag")
    json_calls, found_json = _json_calls(text, tools, notes)
    if json_calls:
        return _success(json_calls, tools, notes, "json")
    python_calls = _python_calls(text, tools, notes, strict=True)
    if python_calls:
        return _success(python_calls, tools, notes, "python_call")
    final = _FINAL_PREFIX.match(text)
    if final:
        notes.append("read `Final Answer:` text as a final_answer call")
        call = ParsedCall("final_answer", {"answer": final.group(1).strip()})
        return _success([call], tools, notes, "final_answer_text")
    if found_json:
        return ParseFailure(
            'the JSON in the reply names no tool (expected {"name": TOOL, "arguments": {...}})'
        )
    return ParseFailure("no tool call found in the reply")


# Where a call written as text begins: a fence opening an object, a tag, an object naming a tool.
CALL_START = re.compile(r'```[a-z]*\s*\{|<tool_call>|\{\s*"(name|function|tool)"\s*:')


# A tag, opening or closing, with nothing else: `<tools>`, `</tools>`, `<br/>`.
_TAG = re.compile(r"</?[A-Za-z_][\w-]*\s*/?>")


def prose_before_call(text: str) -> str:
    """The words a reply wrote before the call it wrote as text ("" when it began with the
    call, or with tags and no words: replayed, Qwen2.5-Coder-1.5B copied an empty
    `<tools></tools>` at the start of every later reply, then wrote it alone, without a
    call); the whole text when no call start is found."""
    start = CALL_START.search(text)
    if start is None:
        return text
    prose = text[: start.start()].strip()
    return prose if has_words(prose) else ""


def has_words(text: str) -> bool:
    """Whether `text` holds more than whitespace and tags."""
    return bool(_TAG.sub("", text).strip())


def says_it_is_the_answer(text: str) -> bool:
    """Whether text without a call says it is the final answer (`Final answer: …`,
    `final_answer: …`, `{"answer": …}`)."""
    if _FINAL_PREFIX.match(text):
        return True
    stripped = text.strip().strip("`").removeprefix("json").strip()
    loaded = loads_lenient(stripped) if stripped.startswith("{") else None
    return loaded is not None and isinstance(loaded[0], dict) and "answer" in loaded[0]


@dataclass(frozen=True)
class NormalisedArguments:
    """Call arguments as a dict (plus values given without names), or why they are unreadable."""

    named: dict[str, Any] = field(default_factory=dict)
    positional: tuple[Any, ...] = ()
    notes: tuple[str, ...] = ()
    error: str | None = None


def normalise_arguments(raw: Any) -> NormalisedArguments:
    """Native or parsed call arguments (dict, JSON text, scalar, list) -> named/positional."""
    if raw is None:
        return NormalisedArguments()
    if isinstance(raw, dict):
        return NormalisedArguments({str(k): v for k, v in raw.items()})
    notes: list[str] = []
    if isinstance(raw, str):
        if not raw.strip():
            return NormalisedArguments()
        loaded = _loads_closing(raw.strip(), notes)
        if loaded is None:
            if raw.lstrip().startswith(("{", "[")):
                return NormalisedArguments(error=f"they are not valid JSON: {raw.strip()[:80]}")
            return NormalisedArguments(positional=(raw,), notes=("arguments were plain text",))
        value, parse_notes = loaded
        notes += parse_notes
        if isinstance(value, dict):
            return NormalisedArguments({str(k): v for k, v in value.items()}, notes=tuple(notes))
        if value is None:
            return NormalisedArguments(notes=tuple(notes))
        raw = value
    values = tuple(raw) if isinstance(raw, list | tuple) else (raw,)
    return NormalisedArguments(positional=values, notes=tuple(notes))


def _loads_closing(text: str, notes: list[str]) -> tuple[Any, list[str]] | None:
    """`loads_lenient`, then once more on the balanced part or with missing closers added."""
    loaded = loads_lenient(text)
    if loaded is not None or not text.startswith(("{", "[")):
        return loaded
    end, stack, quote = scan_balanced(text, 0, "{[")
    if not stack and end < len(text):
        loaded, note = loads_lenient(text[:end]), "ignored text after the arguments"
    elif stack and len(stack) <= MAX_MISSING_CLOSERS:
        loaded = loads_lenient(text + (quote or "") + "".join(reversed(stack)))
        note = "added missing closing brackets"
    else:
        return None
    if loaded is not None:
        notes.append(note)
    return loaded


# -- JSON ------------------------------------------------------------------------------------
def _json_calls(
    text: str, tools: ToolInputs | None, notes: list[str]
) -> tuple[list[ParsedCall], bool]:
    calls: list[ParsedCall] = []
    spans: list[tuple[int, int]] = []
    found_json = False
    position, attempts, scanned = 0, 0, 0
    while attempts < MAX_CANDIDATES and len(calls) < MAX_CALLS and scanned < SCAN_BUDGET_CHARS:
        start = next_opener(text, position, "{[")
        if start < 0:
            break
        attempts += 1
        end, stack, quote = scan_balanced(text, start, "{[")
        scanned += end - start
        candidate = text[start:end]
        repair: list[str] = []
        if len(stack) > MAX_MISSING_CLOSERS:
            position = start + 1
            continue
        if stack:
            candidate += (quote or "") + "".join(reversed(stack))
            repair.append("added missing closing brackets")
        loaded = loads_lenient(candidate)
        if loaded is None or not isinstance(loaded[0], dict | list):
            position = start + 1
            continue
        value, parse_notes = loaded
        found_json = found_json or _has_object(value)
        found = _calls_from_value(value, tools, repair)
        if not found:
            position = start + 1 if not stack else end
            continue
        calls += found
        notes += parse_notes + repair
        spans.append((start, end))
        position = end
    if calls and _text_outside(text, spans):
        notes.append("ignored text around the call")
    return calls, found_json


def _has_object(value: Any) -> bool:
    return isinstance(value, dict) or any(isinstance(item, dict) for item in value)


def _text_outside(text: str, spans: list[tuple[int, int]]) -> bool:
    edges = [0] + [i for span in spans for i in span] + [len(text)]
    outside = "".join(text[a:b] for a, b in zip(edges[::2], edges[1::2], strict=True))
    return bool(re.sub(r"```\w*", "", outside).strip())


def _calls_from_value(value: Any, tools: ToolInputs | None, notes: list[str]) -> list[ParsedCall]:
    if isinstance(value, list):
        return [c for item in value[:MAX_CALLS] for c in _calls_from_value(item, tools, notes)]
    if not isinstance(value, dict):
        return []
    if isinstance(value.get("tool_calls"), list):
        return _calls_from_value(value["tool_calls"], tools, notes)
    function = value.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str):
        value = function
    name = next((value[k] for k in NAME_KEYS if isinstance(value.get(k), str)), None)
    if name is not None and name.strip():
        raw = next((value[k] for k in ARGUMENT_KEYS if k in value), None)
        if raw is None:
            rest = {k: v for k, v in value.items() if k not in NAME_KEYS and k != "type"}
            raw = rest or None
            if rest:
                notes.append("took the arguments from beside the tool name")
        return [_make_call(name, raw, notes)]
    if "final_answer" in value:
        answer = value["final_answer"]
        if isinstance(answer, dict) and "answer" in answer:
            answer = answer["answer"]
        return [ParsedCall("final_answer", {"answer": answer})]
    if list(value) == ["answer"]:
        notes.append('read {"answer": ...} as a final_answer call')
        return [ParsedCall("final_answer", {"answer": value["answer"]})]
    if tools and len(value) == 1:
        ((key, inner),) = value.items()
        if key in tools and isinstance(inner, dict):
            return [_make_call(key, inner, notes)]
    return []


def _make_call(name: str, raw_arguments: Any, notes: list[str]) -> ParsedCall:
    clean = name.strip().removesuffix("()")
    for prefix in NAME_PREFIXES:
        if clean.startswith(prefix):
            clean = clean[len(prefix) :]
            notes.append(f"removed the `{prefix}` prefix from the tool name")
    arguments = normalise_arguments(raw_arguments)
    notes += arguments.notes
    if isinstance(raw_arguments, str) and arguments.named:
        notes.append("decoded arguments given as a JSON string")
    return ParsedCall(clean, arguments.named, arguments.positional, arguments.error)


def _python_calls(
    text: str, tools: ToolInputs | None, notes: list[str], *, strict: bool
) -> list[ParsedCall]:
    found = find_python_calls(text, tools, strict=strict, max_calls=MAX_CALLS)
    calls = []
    for name, named, positional in found:
        call = _make_call(name, named, notes)
        calls.append(ParsedCall(call.name, call.arguments, positional))
    return calls


# -- helpers ---------------------------------------------------------------------------------
def _calls_in(
    block: str, tools: ToolInputs | None, notes: list[str], *, strict_python: bool
) -> list[ParsedCall]:
    calls, _ = _json_calls(block, tools, notes)
    return calls or _python_calls(block, tools, notes, strict=strict_python)


def _success(
    calls: list[ParsedCall], tools: ToolInputs | None, notes: list[str], source: str
) -> ParseSuccess:
    mapped = [map_positional(call, tools, notes) for call in calls[:MAX_CALLS]]
    return ParseSuccess(tuple(mapped), tuple(dict.fromkeys(notes)), source)


def map_positional(call: ParsedCall, tools: ToolInputs | None, notes: list[str]) -> ParsedCall:
    """Give positional values the tool's argument names, in order, when the tool is known."""
    if not call.positional or not tools or call.name not in tools:
        return call
    free = [name for name in tools[call.name] if name not in call.arguments]
    if len(call.positional) > len(free):
        return call
    notes.append("named the positional arguments")
    named = {**call.arguments, **dict(zip(free, call.positional, strict=False))}
    return ParsedCall(call.name, named, (), call.argument_error)
