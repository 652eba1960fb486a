"""The embedded model's prompt: chat messages and the offered tools, in one of two styles.

**Native** (`native_messages`), for GGUF files whose chat template knows tools (Qwen2.5's
`<tools>` and `<tool_call>` blocks, Hermes-style templates): the template renders the tools
(the same compact schemas a model server is sent) and the history with native tool calls
and `tool` results, exactly as llama.cpp's server would. A call the model writes is
`<tool_call>\n{"name": …, "arguments": {…}}`, byte for byte what the template replays
next step, so the next prompt extends this one and the KV cache is reused.

**Plain** (`chat_turns`): tiny GGUF chat templates (SmolLM2's ChatML, Gemma's turns) know
nothing of tools, so this does what a tool-aware template would: the tool list goes into
the system turn, once, one line per tool (`read_file(path, start_line?: int, end_line?:
int) - description`); a past call is replayed as the assistant writing that call in exactly
the grammar's shape; a tool result becomes a user turn `Result of read_file:` + the text.
Roles are reduced to system/user/assistant and consecutive turns of one role merged (Gemma
insists on alternation). Messages may be smolagents `ChatMessage`s (text or native tool
calls) or OpenAI-style dicts; `lsp_agent.models.messages.to_provider_messages` does the
first step.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from smolagents.models import ChatMessage

from lsp_agent.models.embedded.tool_grammar import call_text
from lsp_agent.models.messages import to_provider_messages

__all__ = [
    "CALL_INSTRUCTION",
    "chat_turns",
    "native_messages",
    "template_knows_tools",
    "tool_lines",
]

CALL_INSTRUCTION = (
    'Reply with exactly one tool call as JSON: {"name": "<tool>", "arguments": {...}}.'
)
_TYPE_MARKS = {"integer": ": int", "number": ": number", "boolean": ": bool"}

# A worked example shown before the real conversation: tiny models copy patterns far
# better than they follow instructions. Its tools are offered to every agent; its results
# have the shape of the real tools' results.
EXAMPLE_TASK = (
    'Example task: in hello.py, greet() returns "Helo" instead of "Hello". '
    'Replace "Helo" with "Hello".'
)
EXAMPLE_PROPOSED = {
    "patch_id": "p1",
    "files": ["hello.py"],
    "check": "applies: yes; check: passed",
    "next": (
        'Apply with apply_patch(patch_id="p1") '
        '(review first with show_patch(patch_id="p1") if needed).'
    ),
}
EXAMPLE_TURNS: tuple[tuple[str, str], ...] = (
    ("user", EXAMPLE_TASK),
    (
        "assistant",
        call_text("propose_patch", {"path": "hello.py", "old": '"Helo"', "new": '"Hello"'}),
    ),
    ("user", "Result of propose_patch:\n" + json.dumps(EXAMPLE_PROPOSED)),
    ("assistant", call_text("apply_patch", {"patch_id": "p1"})),
    ("user", "Result of apply_patch:\napplied: p1 (hello.py)"),
    ("assistant", call_text("final_answer", {"answer": "Fixed greet() in hello.py."})),
    ("user", "End of example. Now the real task."),
)
EXAMPLE_TOOLS = frozenset({"propose_patch", "apply_patch", "final_answer"})


def tool_lines(tools: Sequence[Any]) -> str:
    """One line per tool: its signature (optional arguments marked `?`) and description."""
    lines = []
    for tool in tools:
        parts = []
        for name, schema in dict(tool.inputs).items():
            optional = "?" if schema.get("nullable") else ""
            parts.append(f"{name}{optional}{_TYPE_MARKS.get(str(schema.get('type')), '')}")
        description = " ".join(str(tool.description).split())
        lines.append(f"{tool.name}({', '.join(parts)}) - {description}")
    return "\n".join(lines)


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except ValueError:
            return {"value": raw}
        return parsed if isinstance(parsed, dict) else {"value": parsed}
    return {}


def chat_turns(
    messages: Sequence[ChatMessage | dict[str, Any]],
    tools: Sequence[Any] | None,
    *,
    example: bool = False,
) -> list[dict[str, str]]:
    """system/user/assistant turns for a chat template; tools listed in the system turn.

    `example=True` inserts the worked example after the system turn when its tools are
    all offered.
    """
    turns: list[dict[str, str]] = []
    call_names: dict[str, str] = {}
    for message in to_provider_messages(list(messages)):
        role = str(message.get("role", "user"))
        text = str(message.get("content") or "")
        if message.get("tool_calls"):
            calls = []
            for call in message["tool_calls"]:
                function = call.get("function", {})
                name = str(function.get("name", ""))
                call_names[str(call.get("id", ""))] = name
                calls.append(call_text(name, _arguments(function.get("arguments"))))
            role, text = "assistant", "\n".join(calls)
        elif role == "tool":
            name = call_names.get(str(message.get("tool_call_id", "")), "the tool")
            role, text = "user", f"Result of {name}:\n{text}"
        elif role not in ("system", "assistant"):
            role = "user"
        turns.append({"role": role, "content": text})
    if tools:
        listing = f"Tools:\n{tool_lines(tools)}\n{CALL_INSTRUCTION}"
        has_system = bool(turns) and turns[0]["role"] == "system"
        if has_system:
            turns[0]["content"] = f"{turns[0]['content']}\n\n{listing}"
        else:
            turns.insert(0, {"role": "system", "content": listing})
        if example and {str(t.name) for t in tools} >= EXAMPLE_TOOLS:
            turns[1:1] = [{"role": r, "content": c} for r, c in EXAMPLE_TURNS]
    return _merge_runs(turns)


def _merge_runs(turns: list[dict[str, str]]) -> list[dict[str, str]]:
    """Consecutive turns of one role become one (chat templates expect alternation)."""
    merged: list[dict[str, str]] = []
    for turn in turns:
        if merged and merged[-1]["role"] == turn["role"]:
            merged[-1]["content"] = f"{merged[-1]['content']}\n\n{turn['content']}"
        else:
            merged.append(dict(turn))
    return merged


def template_knows_tools(template: str) -> bool:
    """Whether a chat template renders `tools` and native tool calls (Qwen2.5, Hermes)."""
    return "tools" in template and "tool_call" in template


def native_messages(messages: Sequence[ChatMessage | dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI-style messages for a template that renders tool calls itself: arguments as
    dicts (templates write them with `tojson`), text content never None."""
    out = []
    for provided in to_provider_messages(list(messages)):
        message = dict(provided)
        message["content"] = str(message.get("content") or "")
        if message.get("tool_calls"):
            message["tool_calls"] = [
                {
                    **call,
                    "function": {
                        "name": call.get("function", {}).get("name", ""),
                        "arguments": _arguments(call.get("function", {}).get("arguments")),
                    },
                }
                for call in message["tool_calls"]
            ]
        out.append(message)
    return out
