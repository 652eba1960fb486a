"""LiteLLM models that send the history in the provider's native tool-call format.

smolagents' `LiteLLMModel` flattens the conversation (`get_clean_message_list`): past
tool calls become assistant text and tool results become user text. These subclasses
keep everything else smolagents prepares and replace the `messages` with
`to_provider_messages(...)` (assistant `tool_calls` and `tool` results with their ids) and
the `tools` with their compact schemas (`tool_schemas`: no per-argument prose).

With `capabilities` set (`lsp_agent.models.capabilities`), every request is shaped to what the
endpoint accepts, and a request the server rejects for a parameter is sent again with that
parameter's weaker form (each step of the ladder once; anything else is raised).
"""

from __future__ import annotations

from typing import Any

from smolagents.models import ChatMessage, LiteLLMModel, LiteLLMRouterModel

from lsp_agent.models.capabilities import LADDER_STEPS, EndpointCapabilities
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
    capabilities: EndpointCapabilities | None = None
    ask_single_call: bool = False  # send `parallel_tool_calls: false` (OpenAI-compatible ids)
    last_request: dict[str, Any] | None = None

    def generate(self, messages: list[ChatMessage | dict[str, Any]], **options: Any) -> ChatMessage:
        """smolagents' `generate` (options passed on as given, by keyword), sent again in a
        weaker form when the server rejects a parameter (`models.capabilities`)."""
        capabilities = self.capabilities
        guess_pending = False
        for attempt in range(LADDER_STEPS + 1):
            self.last_request = None
            try:
                reply: ChatMessage = super().generate(messages, **options)  # type: ignore[misc]
                return reply
            except Exception as exc:
                if capabilities is None:
                    raise
                last = attempt == LADDER_STEPS
                if last or not capabilities.downgrade_after(exc, self.last_request):
                    if guess_pending:
                        capabilities.undo_guess()
                    raise
                guess_pending = capabilities.downgrades[-1].guessed
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _prepare_completion_kwargs(
        self, messages: list[ChatMessage | dict[str, Any]], *args: Any, **kwargs: Any
    ) -> dict[str, Any]:
        # smolagents lets the model's own kwargs (MODEL_MAX_TOKENS) win over a call's: a
        # call's `max_tokens` (a planning reply's limit) may only lower it.
        limit = kwargs.pop("max_tokens", None)
        prepared: dict[str, Any] = super()._prepare_completion_kwargs(  # type: ignore[misc]
            _fillable(messages), *args, **kwargs
        )
        if isinstance(limit, int) and limit > 0:
            prepared["max_tokens"] = min(int(prepared.get("max_tokens") or limit), limit)
        prepared["messages"] = to_provider_messages(messages)
        tools = kwargs.get("tools_to_call_from")
        if tools and "tools" in prepared:
            prepared["tools"] = compact_tool_schemas(tools)
        if self.capabilities is not None:
            prepared = self.capabilities.shape(prepared, ask_single_call=self.ask_single_call)
        self.last_request = prepared
        return prepared


class NativeLiteLLMModel(NativeReplayMixin, LiteLLMModel):  # type: ignore[misc]
    pass


class NativeLiteLLMRouterModel(NativeReplayMixin, LiteLLMRouterModel):  # type: ignore[misc]
    pass
