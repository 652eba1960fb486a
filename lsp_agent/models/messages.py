"""Replay past steps to the model in the provider's native tool-call format.

smolagents replays a past call as text (`Calling tools:\n[{'id': …}]`, a Python repr)
and the result as a user message; small models then copy that text back as malformed
JSON. Here a past step becomes an assistant message with `tool_calls` and one `tool`
message per call carrying its `tool_call_id`, which is what the model was trained on.

`memory_messages()` builds smolagents `ChatMessage`s (tool results keep their call id
in `raw`); `to_provider_messages()` turns them into the OpenAI-style dicts that LiteLLM
and llama.cpp accept.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from smolagents.memory import ActionStep, AgentMemory, PlanningStep, TaskStep
from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
)

TOOL_CALL_ID = "tool_call_id"


def message_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(
        str(part.get("text", "")) for part in content if isinstance(part, dict)
    ).strip()


def _message(role: MessageRole, text: str, raw: Any = None) -> ChatMessage:
    return ChatMessage(role=role, content=[{"type": "text", "text": text}], raw=raw)


def action_messages(step: ActionStep) -> list[ChatMessage]:
    calls = step.tool_calls or []
    if not calls:
        if step.error is not None:  # the reply could not be used: tell the model why
            return [_message(MessageRole.USER, f"Error: {step.error}")]
        return []
    prose = message_text(step.model_output) if isinstance(step.model_output, str | list) else ""
    native = [
        ChatMessageToolCall(
            id=call.id,
            type="function",
            function=ChatMessageToolCallFunction(name=call.name, arguments=call.arguments),
        )
        for call in calls
    ]
    messages = [ChatMessage(role=MessageRole.ASSISTANT, content=prose or None, tool_calls=native)]
    result = step.observations if step.observations is not None else ""
    if step.error is not None:
        result = (result + "\n" if result else "") + f"Error: {step.error}"
    for index, call in enumerate(calls):
        text = result if index == 0 else "(see the result of the first call)"
        messages.append(_message(MessageRole.TOOL_RESPONSE, text, raw={TOOL_CALL_ID: call.id}))
    return messages


def memory_messages(memory: AgentMemory, summary_mode: bool = False) -> list[ChatMessage]:
    """The conversation so far: system prompt, task, and each step as native calls.

    Only the latest plan is replayed (an older one is superseded). `summary_mode` (what
    smolagents asks for when it revises a plan) leaves out the system prompt and plans."""
    messages: list[ChatMessage] = []
    if not summary_mode:
        messages.append(_message(MessageRole.SYSTEM, memory.system_prompt.system_prompt))
    plans = [step for step in memory.steps if isinstance(step, PlanningStep)]
    for step in memory.steps:
        if isinstance(step, TaskStep):
            messages.append(_message(MessageRole.USER, step.task))
        elif isinstance(step, ActionStep):
            messages.extend(action_messages(step))
        elif isinstance(step, PlanningStep) and step is plans[-1] and not summary_mode:
            messages.extend(step.to_messages())
    return messages


def _arguments_json(arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)


def to_provider_messages(messages: list[ChatMessage | dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI-style messages: `assistant.tool_calls` and `tool` results with their id."""
    out: list[dict[str, Any]] = []
    for item in messages:
        message = ChatMessage.from_dict(item) if isinstance(item, dict) else item
        role = str(message.role.value if hasattr(message.role, "value") else message.role)
        text = message_text(message.content)
        raw = message.raw if isinstance(message.raw, dict) else {}
        if message.tool_calls:
            out.append(
                {
                    "role": "assistant",
                    # "" rather than None: LiteLLM drops a None content, and chat templates
                    # that read `message.content` strictly (llama-cpp-python's
                    # chatml-function-calling) then fail with HTTP 500.
                    "content": text,
                    "tool_calls": [
                        {
                            "id": call.id,
                            "type": "function",
                            "function": {
                                "name": call.function.name,
                                "arguments": _arguments_json(call.function.arguments),
                            },
                        }
                        for call in message.tool_calls
                    ],
                }
            )
            continue
        if role == MessageRole.TOOL_RESPONSE.value and TOOL_CALL_ID in raw:
            out.append({"role": "tool", "tool_call_id": raw[TOOL_CALL_ID], "content": text})
            continue
        if role in (MessageRole.TOOL_RESPONSE.value, MessageRole.TOOL_CALL.value):
            role = "user" if role == MessageRole.TOOL_RESPONSE.value else "assistant"
        if (
            out
            and out[-1]["role"] == role
            and role in ("user", "system")
            and "tool_calls" not in out[-1]
        ):
            out[-1]["content"] = f"{out[-1]['content']}\n\n{text}"
        else:
            out.append({"role": role, "content": text})
    return out


def called_tools(messages: Sequence[ChatMessage | dict[str, Any]]) -> tuple[str, ...]:
    """The tools of the calls in the history, oldest first."""
    return tuple(name for name, _ in _calls(messages))


def past_calls(messages: Sequence[ChatMessage | dict[str, Any]]) -> list[tuple[str, Any]]:
    """The calls in the history, oldest first: (tool, arguments), the arguments decoded
    when they were sent as JSON text."""
    return [(name, _decoded(arguments)) for name, arguments in _calls(messages)]


def _calls(messages: Sequence[ChatMessage | dict[str, Any]]) -> Iterator[tuple[str, Any]]:
    """(tool, arguments as sent) of each call in the history, oldest first."""
    for message in messages:
        calls = message.get("tool_calls") if isinstance(message, dict) else message.tool_calls
        for call in calls or ():
            function = call.get("function", {}) if isinstance(call, dict) else call.function
            if isinstance(function, dict):
                name, arguments = function.get("name"), function.get("arguments")
            else:
                name, arguments = function.name, function.arguments
            if name:
                yield str(name), arguments


def _decoded(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments
