"""LiteLLM models that send the history in the provider's native tool-call format.

smolagents' `LiteLLMModel` flattens the conversation (`get_clean_message_list`): past
tool calls become assistant text and tool results become user text. These subclasses
keep everything else smolagents prepares and replace the `messages` with
`to_provider_messages(...)` (assistant `tool_calls` and `tool` results with their ids) and
the `tools` with their compact schemas (`tool_schemas`: no per-argument prose).

With `capabilities` set (`lsp_agent.models.capabilities`), every request is shaped to what the
endpoint accepts, and a request the server rejects for a parameter is sent again with that
parameter's weaker form (each step of the ladder once; anything else is raised).

A request that offers tools is streamed and read only up to the end of the first complete
call written as text, or until the reply loops (`streamed_reply`): a small model's reply is
one call, never a call and a thousand tokens of what it imagines next.
"""

from __future__ import annotations

from typing import Any

from smolagents.models import ChatMessage, LiteLLMModel, LiteLLMRouterModel
from smolagents.monitoring import TokenUsage

from lsp_agent.models.capabilities import LADDER_STEPS, EndpointCapabilities
from lsp_agent.models.messages import to_provider_messages
from lsp_agent.models.robust.failures import FailureKind, classify_model_exception
from lsp_agent.models.streamed_reply import read_stream, trim_loop
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
                stream_failed = False
                if options.get("tools_to_call_from") and (
                    capabilities is None or capabilities.streams
                ):
                    streamed = self._streamed(messages, **options)
                    if streamed is not None and (streamed.content or streamed.tool_calls):
                        return streamed
                    # Nothing streamed: some servers (llama-cpp-python's) fail inside a 200
                    # stream or stream their calls in a form LiteLLM drops; ask without it.
                    stream_failed = True
                reply = (
                    self._asked_again_without_stream(messages, **options)
                    if stream_failed
                    else super().generate(messages, **options)  # type: ignore[misc]
                )
                if stream_failed and (reply.content or reply.tool_calls) and capabilities:
                    capabilities.streaming_fails()
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

    def _asked_again_without_stream(
        self, messages: list[ChatMessage | dict[str, Any]], **options: Any
    ) -> ChatMessage:
        """The request again, not streamed. A server that failed inside its stream drops that
        connection, and the next request may meet it closed in the client's pool ("Server
        disconnected without sending a response"): that one is sent once more."""
        try:
            reply: ChatMessage = super().generate(messages, **options)  # type: ignore[misc]
        except Exception as exc:
            if classify_model_exception(exc)[0] is not FailureKind.CONNECTION:
                raise
            reply = super().generate(messages, **options)  # type: ignore[misc]
        return reply

    def _streamed(
        self,
        messages: list[ChatMessage | dict[str, Any]],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Any] | None = None,
        **kwargs: Any,
    ) -> ChatMessage | None:
        """One request, streamed and cut after the first complete call (module doc); the
        reply as smolagents' `LiteLLMModel.generate` makes it, or None when the stream broke
        off after it began."""
        import litellm

        model: Any = self
        completion_kwargs = self._prepare_completion_kwargs(
            messages=messages,
            stop_sequences=stop_sequences,
            response_format=response_format,
            tools_to_call_from=tools_to_call_from,
            model=model.model_id,
            api_base=model.api_base,
            api_key=model.api_key,
            convert_images_to_image_urls=True,
            custom_role_conversions=model.custom_role_conversions,
            **kwargs,
        )
        model._apply_rate_limit()
        stream = model.client.completion(
            **completion_kwargs, stream=True, stream_options={"include_usage": True}
        )
        try:
            response, cut = read_stream(
                stream,
                lambda chunks: litellm.stream_chunk_builder(
                    chunks, messages=completion_kwargs["messages"]
                ),
            )
        except Exception as exc:
            if classify_model_exception(exc)[0] is not FailureKind.CONNECTION:
                raise
            return None  # the stream broke off: asked again without streaming
        if response is None or not response.choices:
            raise RuntimeError(f"model {model.model_id} returned no choices")
        choice = response.choices[0]
        if cut is not None:
            choice.finish_reason = "cut"
        looped = cut == "in a loop" and not choice.message.tool_calls
        if looped and choice.message.content:
            choice.message.content = trim_loop(choice.message.content)
        if looped and completion_kwargs.get("tool_choice") == "required" and self.capabilities:
            self.capabilities.looped_under_required()
        usage = response.usage
        return ChatMessage(
            role=choice.message.role,
            content=choice.message.content,
            tool_calls=choice.message.tool_calls,
            raw=response,
            token_usage=TokenUsage(
                input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            ),
        )

    def _prepare_completion_kwargs(
        self, messages: list[ChatMessage | dict[str, Any]], *args: Any, **kwargs: Any
    ) -> dict[str, Any]:
        # smolagents lets the model's own kwargs (MODEL_MAX_TOKENS) win over a call's: a
        # call's `max_tokens` (a planning reply's limit) may only lower it, and a call's
        # `temperature` (a stale reply decoded again: `robust.fresh`) replaces the model's.
        limit = kwargs.pop("max_tokens", None)
        temperature = kwargs.pop("temperature", None)
        prepared: dict[str, Any] = super()._prepare_completion_kwargs(  # type: ignore[misc]
            _fillable(messages), *args, **kwargs
        )
        if isinstance(limit, int) and limit > 0:
            prepared["max_tokens"] = min(int(prepared.get("max_tokens") or limit), limit)
        if isinstance(temperature, int | float):
            prepared["temperature"] = float(temperature)
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
