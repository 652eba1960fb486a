"""LiteLLM models that send the history in the provider's native tool-call format.

smolagents' `LiteLLMModel` flattens the conversation (`get_clean_message_list`): past
tool calls become assistant text and tool results become user text. These subclasses
keep everything else smolagents prepares and replace the `messages` with
`to_provider_messages(...)` (assistant `tool_calls` and `tool` results with their ids) and
the `tools` with their compact schemas (`tool_schemas`: no per-argument prose).
"""

from __future__ import annotations

from typing import Any

from smolagents.models import ChatMessage, LiteLLMModel, LiteLLMRouterModel

from lsp_agent.models.messages import to_provider_messages
from lsp_agent.models.tool_schemas import compact_tool_schemas


def _fillable(messages: list[ChatMessage | dict[str, Any]]) -> list[ChatMessage | dict[str, Any]]:
    """Messages smolagents' own preparation accepts (it expects text content)."""
    out: list[ChatMessage | dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ChatMessage) and message.content is None:
            out.append(
                ChatMessage(
                    role=message.role,
                    content=[{"type": "text", "text": ""}],
                    tool_calls=message.tool_calls,
                    raw=message.raw,
                )
            )
        else:
            out.append(message)
    return out


class NativeReplayMixin:
    def _prepare_completion_kwargs(
        self, messages: list[ChatMessage | dict[str, Any]], *args: Any, **kwargs: Any
    ) -> dict[str, Any]:
        prepared: dict[str, Any] = super()._prepare_completion_kwargs(  # type: ignore[misc]
            _fillable(messages), *args, **kwargs
        )
        prepared["messages"] = to_provider_messages(messages)
        tools = kwargs.get("tools_to_call_from")
        if tools and "tools" in prepared:
            prepared["tools"] = compact_tool_schemas(tools)
        return prepared


class NativeLiteLLMModel(NativeReplayMixin, LiteLLMModel):  # type: ignore[misc]
    pass


class NativeLiteLLMRouterModel(NativeReplayMixin, LiteLLMRouterModel):  # type: ignore[misc]
    pass
