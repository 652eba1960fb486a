"""`MODEL_ID=embedded[:NAME|:PATH]`: a tiny GGUF model run in-process by llama.cpp.

- The model (`models.embedded.loader`) is loaded once per process; generation is serialised by a
  lock (one llama.cpp context is not re-entrant). llama-cpp-python's prompt-prefix cache
  makes each agent step pay only for the new turns. Nothing reaches stdout.
- The prompt (`embedded_prompt`): the tools listed in the system turn, past calls replayed in
  the grammar's own shape; `example=True` adds a worked example before the task (off by
  default: SmolLM2-135M copies the example's last call, `final_answer`, at once).
- When tools are offered, the reply is exactly one valid call (`tool_grammar`): the tool is
  chosen by the likelihood of its whole name (`choice_scoring`; token-by-token masking
  would pick `final_answer` for its one-letter first token), with a call-level repetition
  penalty on the previous call's tool; then its arguments are written under the grammar,
  sampled check-first (`grammar_sampler`). The call comes back as a native `tool_calls`
  entry with dict arguments. `argument_choices` (a callable the runtime may set, called
  per reply) turns arguments into enums: `{"path": the workspace's files, "patch_id": ids}`.
- A reply that loops (`1.0.0.0…`) is cut early; with `max_tokens` it comes back as plain
  text, which RobustModel turns into an observation. The context is at most `MAX_CONTEXT`;
  size the agent's context budget from `EmbeddedModel.context_length`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import numpy as np
import numpy.typing as npt
from llama_cpp import StoppingCriteriaList
from llama_cpp.llama_grammar import LlamaGrammar
from llama_cpp.llama_types import CreateCompletionResponse
from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
    Model,
)
from smolagents.monitoring import TokenUsage
from smolagents.tools import Tool

from lsp_agent.models.config import ModelConfig
from lsp_agent.models.embedded.choice_scoring import choose
from lsp_agent.models.embedded.loader import (
    DEFAULT_EMBEDDED,
    EmbeddedModelError,
    LoadedModel,
    embedded_gguf,
    load_llama,
)
from lsp_agent.models.embedded.prompt import chat_turns
from lsp_agent.models.embedded.tool_grammar import (
    CALL_PREFIX,
    arguments_grammar,
    call_head,
    check_call,
    tool_specs,
)

__all__ = [
    "DEFAULT_EMBEDDED",
    "EmbeddedModel",
    "EmbeddedModelError",
    "build_embedded_model",
    "embedded_gguf",
    "ends_in_loop",
    "load_llama",
]

MAX_CONTEXT = 4096  # a 135M-270M model gains nothing from more, and prompts cost ~100 tok/s
MIN_REPLY_TOKENS = 256
LOOP_MIN_CHARS = 48  # a repeated pattern this long ends the reply
LOOP_MAX_PERIOD = 12
# Tiny models copy their previous call (SmolLM2-135M re-proposes a patch it just proposed
# with p≈0.8 and applies it with p≈0.1): a call-level repetition penalty, in nats, on the
# tool of the previous call. It lowers that tool's odds; it never removes a tool.
REPEAT_CALL_PENALTY = 2.5


class PromptTooLongError(ValueError):
    """Even the system turn and the task leave no room for a reply."""


ArgumentChoices = Callable[[], Mapping[str, Sequence[str]]]


class EmbeddedModel(Model):  # type: ignore[misc]
    """A smolagents `Model` over an in-process llama.cpp model (see the module doc)."""

    def __init__(
        self,
        loaded: LoadedModel,
        *,
        model_id: str,
        temperature: float,
        max_tokens: int,
        argument_choices: ArgumentChoices | None = None,
        max_string_chars: int = 1500,
        example: bool = False,
        repeat_penalty: float = REPEAT_CALL_PENALTY,
    ) -> None:
        super().__init__(model_id=model_id)
        self.loaded = loaded
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.argument_choices = argument_choices
        self.max_string_chars = max_string_chars
        self.example = example
        self.repeat_penalty = repeat_penalty
        self.last_grammar = ""

    @property
    def context_length(self) -> int:
        """Tokens of context the model was loaded with (size the context budget from this)."""
        return self.loaded.n_ctx

    def generate(
        self,
        messages: list[ChatMessage | dict[str, Any]],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Tool] | None = None,
        **kwargs: Any,
    ) -> ChatMessage:
        max_tokens = int(kwargs.get("max_tokens", self.max_tokens))
        temperature = float(kwargs.get("temperature", self.temperature))
        prompt = self._prompt(messages, tools_to_call_from)
        with self.loaded.lock:
            if tools_to_call_from:
                previous = _last_call_name(messages)
                return self._call(prompt, tools_to_call_from, max_tokens, temperature, previous)
            grammar = _response_format_grammar(response_format) if response_format else None
            result = self._complete(
                prompt, max_tokens, temperature, grammar, None if grammar else stop_sequences
            )
        text = str(result["choices"][0]["text"])
        raw = {"text": text, "finish_reason": result["choices"][0].get("finish_reason")}
        usage = _usage(result)
        return ChatMessage(role=MessageRole.ASSISTANT, content=text, raw=raw, token_usage=usage)

    def _call(
        self,
        prompt: str,
        tools: list[Tool],
        max_tokens: int,
        temperature: float,
        previous: str | None,
    ) -> ChatMessage:
        """Choose the tool by likelihood, then write its arguments under the grammar."""
        choices = self.argument_choices() if self.argument_choices is not None else None
        specs = tool_specs(tools, choices=choices, max_string_chars=self.max_string_chars)
        llama = self.loaded.llama
        name, _ = choose(
            llama,
            self._tokens(prompt + CALL_PREFIX),
            [f'{spec.name}",' for spec in specs],
            temperature=temperature,
            penalties=[self.repeat_penalty if s.name == previous else 0.0 for s in specs],
        )
        spec = next(s for s in specs if f'{s.name}",' == name)
        head = call_head(spec.name)
        self.last_grammar = arguments_grammar(spec)
        result = self._complete(
            prompt + head,
            max_tokens,
            temperature,
            LlamaGrammar.from_string(self.last_grammar, verbose=False),
            None,
        )
        text = head + str(result["choices"][0]["text"])
        raw = {"text": text, "finish_reason": result["choices"][0].get("finish_reason")}
        usage = _usage(result)
        call = check_call(text, specs)
        if isinstance(call, str):  # cut short (max tokens or a loop): RobustModel says so
            return ChatMessage(role=MessageRole.ASSISTANT, content=text, raw=raw, token_usage=usage)
        tool_call = ChatMessageToolCall(
            id=f"call_{uuid.uuid4().hex[:12]}",
            type="function",
            function=ChatMessageToolCallFunction(name=call[0], arguments=call[1]),
        )
        return ChatMessage(
            role=MessageRole.ASSISTANT,
            content=None,
            tool_calls=[tool_call],
            raw=raw,
            token_usage=usage,
        )

    def _complete(
        self,
        prompt: str,
        max_tokens: int,
        temperature: float,
        grammar: LlamaGrammar | None,
        stop: list[str] | None,
    ) -> CreateCompletionResponse:
        """One completion of `prompt` (the `stream=False` shape of llama-cpp-python's union)."""
        tokens = self._tokens(prompt)
        room = self.loaded.n_ctx - len(tokens)
        if room < MIN_REPLY_TOKENS // 2:
            raise PromptTooLongError(
                f"the prompt has {len(tokens)} tokens; the embedded model's context is "
                f"{self.loaded.n_ctx}: shorten the history"
            )
        result = self.loaded.llama.create_completion(
            prompt=tokens,
            max_tokens=min(max_tokens, room),
            temperature=temperature,
            stop=stop,
            grammar=grammar,
            stopping_criteria=StoppingCriteriaList([self._loop_stop(len(tokens))]),
        )
        return cast(CreateCompletionResponse, result)

    def _tokens(self, text: str) -> list[int]:
        encoded = text.encode("utf-8")
        return list(self.loaded.llama.tokenize(encoded, add_bos=False, special=True))

    def _loop_stop(self, prompt_length: int) -> Callable[[npt.NDArray[np.intc], Any], bool]:
        """Stop when the reply ends in a short pattern repeated over and over (a tiny-model
        loop such as `1.0.0.0.0…`): the cut reply is unusable, and RobustModel says so."""
        llama = self.loaded.llama

        def stop(input_ids: npt.NDArray[np.intc], logits: Any) -> bool:
            reply = input_ids[prompt_length:]
            if len(reply) < LOOP_MIN_CHARS // 4:
                return False
            tail = bytes(llama.detokenize(list(reply[-LOOP_MIN_CHARS:]))).decode(errors="replace")
            return ends_in_loop(tail)

        return stop

    def _prompt(
        self, messages: list[ChatMessage | dict[str, Any]], tools: list[Tool] | None
    ) -> str:
        """The prompt text; the oldest turns after the task are dropped if it won't fit."""
        turns = chat_turns(messages, tools, example=self.example)
        while True:
            prompt = str(self.loaded.formatter(messages=cast(Any, turns)).prompt)
            fits = len(self._tokens(prompt)) + MIN_REPLY_TOKENS <= self.loaded.n_ctx
            if fits or len(turns) <= 3:
                return prompt
            del turns[2 if turns[0]["role"] == "system" else 1]


def _last_call_name(messages: Sequence[ChatMessage | dict[str, Any]]) -> str | None:
    """The tool of the most recent call in the history, if any."""
    for message in reversed(messages):
        calls = message.get("tool_calls") if isinstance(message, dict) else message.tool_calls
        if calls:
            call = calls[-1]
            function = call.get("function", {}) if isinstance(call, dict) else call.function
            name = function.get("name") if isinstance(function, dict) else function.name
            return str(name) if name else None
    return None


def _usage(result: CreateCompletionResponse) -> TokenUsage:
    return TokenUsage(
        input_tokens=int(result["usage"]["prompt_tokens"]),
        output_tokens=int(result["usage"]["completion_tokens"]),
    )


def ends_in_loop(text: str, *, max_period: int = LOOP_MAX_PERIOD) -> bool:
    """Whether the last `LOOP_MIN_CHARS` characters of `text` repeat one pattern of at most
    `max_period` characters (`abcabcabc…`)."""
    tail = text[-LOOP_MIN_CHARS:]
    if len(tail) < LOOP_MIN_CHARS:
        return False
    return any(tail[period:] == tail[:-period] for period in range(1, max_period + 1))


def _response_format_grammar(response_format: dict[str, Any]) -> LlamaGrammar | None:
    """A grammar for smolagents' `response_format` (`json_schema` or `json_object`)."""
    if response_format.get("type") == "json_schema":
        schema = response_format.get("json_schema", {}).get("schema")
        if isinstance(schema, dict):
            return LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
    if response_format.get("type") == "json_object":
        return LlamaGrammar.from_json_schema(json.dumps({"type": "object"}), verbose=False)
    return None


def build_embedded_model(config: ModelConfig) -> EmbeddedModel:
    """The embedded model for `config.model_id` (`embedded`, `embedded:NAME|PATH`)."""
    path = embedded_gguf(config.model_id)
    n_ctx = max(512, min(config.model_num_ctx, MAX_CONTEXT))
    return EmbeddedModel(
        load_llama(path, n_ctx),
        model_id=config.model_id,
        temperature=config.model_temperature,
        max_tokens=config.model_max_tokens,
    )
