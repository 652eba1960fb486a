"""`MODEL_ID=embedded[:NAME|:PATH]`: a GGUF model run in-process by llama.cpp.

- The model (`models.embedded.loader`) is loaded once per process; generation is serialised by a
  lock (one llama.cpp context is not re-entrant). Every token goes through one `Decoder`,
  which keeps the KV cache between calls: an agent's prompt only grows at its end, so each
  step evaluates only its new messages (`raw["prompt_evaluated"]` says how many). Nothing
  reaches stdout.
- The prompt (`prompt`): with a chat template that knows tools (Qwen2.5-Coder) the template
  renders the tools and the history natively; otherwise the tools are listed in the system
  turn and past calls replayed in the grammar's shape (`example=True` adds a worked example).
- With a template that knows tools, the model may begin with words when it would rather
  (`answers_in_prose`): words that say they are the answer (`Final answer: …`) are the reply
  (`RobustModel` reads them as `final_answer`); other words are reasoning, and the call it
  then writes under the grammar follows them, though only the call is kept: every step ends
  in one valid call, and no prose is left for the agent to refuse.
- A call is exactly one valid call (`tool_grammar`): the tool is chosen by the likelihood of
  its whole name (`choice_scoring`; token-by-token masking would pick `final_answer` for its
  one-letter first token), with a call-level repetition penalty on the previous call's tool
  and on a tool without arguments already called (its result would be the same);
  then its arguments are written under the grammar, sampled check-first (`grammar_sampler`),
  and generation ends with the grammar: nothing follows the call. The call comes back as a
  native `tool_calls` entry with dict arguments. `argument_choices` (a callable the runtime
  may set, called per reply) turns arguments into enums: `{"path": the workspace's
  files, "patch_id": ids}`.
- A reply that loops (`1.0.0.0…`) is cut early; cut short, a call comes back as plain text,
  which RobustModel turns into an observation. Size the agent's context budget from
  `EmbeddedModel.context_length`.
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any, cast

from llama_cpp.llama_grammar import LlamaGrammar
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
from lsp_agent.models.embedded.call_writer import Choices, write_arguments
from lsp_agent.models.embedded.choice_scoring import choose, reply_start
from lsp_agent.models.embedded.decoder import Generation, PromptLoad, cancelled_by
from lsp_agent.models.embedded.loader import (
    DEFAULT_EMBEDDED,
    EmbeddedModelError,
    LoadedModel,
    embedded_gguf,
    load_llama,
    max_context,
)
from lsp_agent.models.embedded.prompt import chat_turns, native_messages
from lsp_agent.models.embedded.text_reply import ReplyShape, shaped_generation
from lsp_agent.models.embedded.tool_grammar import (
    CALL_PREFIX,
    MIN_ANSWER_CHARS,
    ToolSpec,
    answer_refused,
    call_head,
    check_call,
    offered_after,
    tool_specs,
)
from lsp_agent.models.messages import called_tools
from lsp_agent.models.streamed_reply import (
    CODE_LOOP_ROUNDS,
    before_stops,
    ends_in_long_loop,
    ends_in_loop,
    trim_loop,
)
from lsp_agent.models.tool_call_parsing import CALL_START, says_it_is_the_answer
from lsp_agent.models.tool_call_parsing.stream_cut import complete_call_end
from lsp_agent.models.tool_schemas import compact_tool_schemas

__all__ = [
    "DEFAULT_EMBEDDED",
    "EmbeddedModel",
    "EmbeddedModelError",
    "build_embedded_model",
    "embedded_gguf",
    "ends_in_loop",
    "load_llama",
]

MIN_REPLY_TOKENS = 256
# Tiny models copy their previous call (SmolLM2-135M re-proposes a patch it just proposed
# with p≈0.8 and applies it with p≈0.1): a call-level repetition penalty, in nats, on the
# tool of the previous call. It lowers that tool's odds; it never removes a tool.
REPEAT_CALL_PENALTY = 2.5
NATIVE_CALL_OPENER = '<tool_call>\n{"name": "'
# First characters of a reply that begins a call: a tag, a fence, a JSON object.
CALL_STARTS = ("<", "`", "{")
# The reply is a call when the first token begins one at least this often.
CALL_ODDS = 0.5
# Words a model may write, after each lead, before an edit, and before a read or the answer.
THINK_TOKENS = 80
ANSWER = "final_answer"
THOUGHT_LEAD = "Let's check each line against the task."
# A thought ends at a paragraph, a code block, or the start of a call.
THOUGHT_END = re.compile(r"\n\n|```|<tool_call>|Here is")


class PromptTooLongError(ValueError):
    """Even the system turn and the task leave no room for a reply."""


ArgumentChoices = Callable[[], Choices]


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
        self.reply_shape: ReplyShape | None = None  # of a reply in text (`shape_text_replies`)
        self.cancel: threading.Event | None = None  # the job's: a reply stops when it is set

    @property
    def context_length(self) -> int:
        """Tokens of context the model was loaded with (size the context budget from this)."""
        return self.loaded.n_ctx

    @property
    def answers_in_prose(self) -> bool:
        """Whether a reply may be plain text (then it is the model's answer)."""
        return self.loaded.native_tools

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
        started = time.monotonic()
        with self.loaded.lock, cancelled_by(self.cancel):
            prompt = self._tokens(self._prompt(messages, tools_to_call_from))
            room = self._room(prompt)
            if tools_to_call_from:
                reply = self._reply(
                    prompt,
                    tools_to_call_from,
                    min(max_tokens, room),
                    temperature,
                    called_tools(messages),
                )
            else:
                grammar = _response_format_grammar(response_format) if response_format else None
                stops = None if grammar else stop_sequences
                stop = _text_stop(stops, cut_at_call=False)
                if self.reply_shape is not None and grammar is None:
                    generation = shaped_generation(
                        self.loaded.decoder,
                        self._tokens,
                        prompt,
                        self.reply_shape,
                        max_tokens=min(max_tokens, room),
                        temperature=temperature,
                        stop=stop,
                        stops=stops or (),
                    )
                else:
                    generation = self.loaded.decoder.generate(
                        prompt,
                        max_tokens=min(max_tokens, room),
                        temperature=temperature,
                        grammar=grammar,
                        stop=stop,
                    )
                reply = self._text_reply(generation, len(prompt), generation.load, stops)
        if isinstance(reply.raw, dict):
            reply.raw["seconds"] = round(time.monotonic() - started, 3)
        return reply

    def _reply(
        self,
        prompt: list[int],
        tools: list[Tool],
        max_tokens: int,
        temperature: float,
        history: tuple[str, ...],
    ) -> ChatMessage:
        """A call, or an answer in words. When the model is likelier to begin with words
        than with a call, it writes them: words that say they are the answer
        (`Final answer: …`) are the reply; any other words (an explanation, a plan, an
        answer not marked as one) are the call's reasoning: the call is written after them,
        under the grammar, and only the call is kept (see the module doc). Right after a
        refused answer, words that say they are the answer are reasoning too: the model
        wrote its refused answer again in words, with our refusal copied after it (L4)."""
        decoder = self.loaded.decoder
        load = None
        reasoning: list[int] = []
        words = ""
        if self.answers_in_prose:
            odds, first, load = reply_start(decoder, prompt, _starts_call, temperature=temperature)
            if odds < CALL_ODDS:
                generation = decoder.generate(
                    prompt,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    stop=_text_stop(None, cut_at_call=True),
                    first=first,
                )
                start = CALL_START.search(generation.text)
                words = generation.text[: start.start()] if start else generation.text
                if start is None and says_it_is_the_answer(words) and not answer_refused(history):
                    return self._text_reply(generation, len(prompt), load, None)
                words = words.rstrip()
                reasoning = self._tokens(words + "\n") if words else []
                load.wasted = len(generation.tokens)
        reply = self._call(
            prompt,
            tools,
            max_tokens,
            temperature,
            history,
            load,
            reasoning,
            think=self.answers_in_prose,
        )
        if isinstance(reply.raw, dict):
            words = reply.raw.pop("thought", "") or words
            if words:
                reply.raw["reasoning"] = words
        return reply

    @staticmethod
    def _thinks_before(spec: ToolSpec, previous: str | None) -> bool:
        """Whether the model thinks before a call to `spec`: before an edit, and, once it has
        called a tool, before a read or the answer."""
        if spec.thought_leads is not None:
            return True
        return previous is not None and (spec.read_only or spec.name == ANSWER)

    def _think(
        self, lead: list[int], leads: Sequence[str], temperature: float, load: PromptLoad
    ) -> list[int]:
        """The tokens of words the model writes after `lead`: each of `leads`, then its
        words, at most THINK_TOKENS each, to the end of the paragraph, a code block or the
        start of a call; the words of a lead but the last end with their line. Told "The
        wrong line is `", Qwen2.5-Coder-1.5B named it, then went on about the `diff`
        parameter for 80 tokens, and after "So I will replace `" renamed the function
        (L6 at 77935e3)."""
        said: list[int] = []
        for number, text in enumerate(leads, start=1):
            last = number == len(leads)
            said += self._tokens(text)
            generation = self.loaded.decoder.generate(
                [*lead, *said],
                max_tokens=THINK_TOKENS,
                temperature=temperature,
                stop=_thought_stop if last else _line_stop,
            )
            load.wasted += len(generation.tokens)
            words = THOUGHT_END.split(generation.text, maxsplit=1)[0].rstrip()
            said += self._tokens(words if last else words.split("\n", 1)[0].rstrip())
        return [*said, *self._tokens("\n")]

    def _call(  # noqa: PLR0917 (one reply's inputs)
        self,
        prompt: list[int],
        tools: list[Tool],
        max_tokens: int,
        temperature: float,
        history: tuple[str, ...],
        load: PromptLoad | None = None,
        reasoning: Sequence[int] = (),
        *,
        think: bool = False,
    ) -> ChatMessage:
        """Choose the tool by likelihood, then write its arguments under the grammar
        (`load`: how the prompt was loaded already, if it was; `reasoning`: the words the
        model wrote before the call, which the call follows but the reply leaves out; with
        `think` and no such words, the model says what it found before a read or the answer
        once it has called a tool, and what it will change before an edit: `_think`)."""
        choices = self.argument_choices() if self.argument_choices is not None else None
        specs = tool_specs(
            tools,
            choices=choices,
            max_string_chars=self.max_string_chars,
            min_answer_chars=1 if self.loaded.native_tools else MIN_ANSWER_CHARS,
        )
        specs = offered_after(specs, history)
        opener = NATIVE_CALL_OPENER if self.loaded.native_tools else CALL_PREFIX
        penalties = call_penalties(specs, history, self.repeat_penalty)
        previous = history[-1] if history else None

        def pick(lead: list[int]) -> tuple[ToolSpec, PromptLoad]:
            name, _, loaded = choose(
                self.loaded.decoder,
                [*lead, *self._tokens(opener)],
                [f'{spec.name}",' for spec in specs],
                temperature=temperature,
                penalties=penalties,
            )
            return next(s for s in specs if f'{s.name}",' == name), loaded

        lead = [*prompt, *reasoning]
        spec, choice_load = pick(lead)
        load = load or choice_load
        if think and not reasoning and self._thinks_before(spec, previous):
            # say what was found (the read or the answer may change) and, before an edit,
            # what will change
            said = self._think(prompt, (THOUGHT_LEAD,), temperature, load)
            if spec.thought_leads is None:
                spec, _ = pick([*prompt, *said])
            if spec.thought_leads:
                said += self._think([*prompt, *said], spec.thought_leads, temperature, load)
            lead = [*prompt, *said]
        head = call_head(spec.name, opener)
        decoder = self.loaded.decoder
        thought = decoder.piece(lead[len(prompt) :]).decode("utf-8", errors="replace").strip()
        written = write_arguments(
            decoder,
            self._tokens,
            lead,
            head,
            spec,
            choices=choices or {},
            temperature=temperature,
            max_tokens=max_tokens,
            said=thought,
        )
        text = head + written.text
        load.tokens = len(prompt)
        forced = len(self._tokens(head)) + written.chosen
        # a call cut as a loop says "cut", not "length": only a reply that ran to the token
        # limit counts as one that ran to `max_tokens` (`bench models`)
        finish = "stop" if written.complete else written.finish
        raw = _raw(text, written.sampled, finish, load, forced)
        if len(lead) > len(prompt) + len(reasoning):
            raw["thought"] = thought
        usage = TokenUsage(len(prompt), forced + written.sampled + load.wasted)
        call = check_call(text.removeprefix(opener[: -len(CALL_PREFIX)]), specs)
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

    def _text_reply(
        self,
        generation: Generation,
        prompt_length: int,
        load: PromptLoad,
        stop_sequences: list[str] | None,
    ) -> ChatMessage:
        text = before_stops(generation.text, stop_sequences or ())
        end = complete_call_end(text)
        if end is not None:
            text = text[:end]
        elif _text_loops(text):
            text = trim_loop(text)
        load.tokens = prompt_length
        return ChatMessage(
            role=MessageRole.ASSISTANT,
            content=text,
            raw=_raw(text, len(generation.tokens), generation.finish_reason, load, 0),
            token_usage=TokenUsage(prompt_length, len(generation.tokens)),
        )

    def _tokens(self, text: str) -> list[int]:
        encoded = text.encode("utf-8")
        return list(self.loaded.llama.tokenize(encoded, add_bos=False, special=True))

    def _room(self, prompt: list[int]) -> int:
        room = self.loaded.n_ctx - len(prompt)
        if room < MIN_REPLY_TOKENS // 2:
            raise PromptTooLongError(
                f"the prompt has {len(prompt)} tokens; the embedded model's context is "
                f"{self.loaded.n_ctx}: shorten the history"
            )
        return room

    def _prompt(
        self, messages: list[ChatMessage | dict[str, Any]], tools: list[Tool] | None
    ) -> str:
        """The prompt text; the oldest turns after the task are dropped if it won't fit."""
        if self.loaded.native_tools:
            turns: list[dict[str, Any]] = native_messages(messages)
            schemas = compact_tool_schemas(tools) if tools else None
        else:
            turns = cast(list[dict[str, Any]], chat_turns(messages, tools, example=self.example))
            schemas = None
        while True:
            rendered = self.loaded.formatter(messages=cast(Any, turns), tools=cast(Any, schemas))
            prompt = str(rendered.prompt)
            fits = len(self._tokens(prompt)) + MIN_REPLY_TOKENS <= self.loaded.n_ctx
            if fits or len(turns) <= 3:
                return prompt
            del turns[2 if turns[0]["role"] == "system" else 1]


def _raw(
    text: str, sampled: int, finish_reason: str, load: PromptLoad, forced: int
) -> dict[str, Any]:
    """What a reply reports beside its text: why it ended and what the step cost."""
    return {
        "text": text,
        "finish_reason": finish_reason,
        "prompt_tokens": load.tokens,
        "prompt_reused": load.reused,
        "prompt_evaluated": load.evaluated,
        "generated": sampled + load.wasted,
        "forced": forced,  # tokens written for the model (a call's opening and tool name)
        "dropped": load.wasted,  # words the model began with before a call, not kept
    }


def _text_stop(stops: list[str] | None, *, cut_at_call: bool) -> Callable[[str], bool]:
    """Stop free text at a stop sequence, a loop, or (`cut_at_call`) the end of a call."""

    def stop(text: str) -> bool:
        if stops and any(s in text for s in stops):
            return True
        if cut_at_call and CALL_START.search(text):
            return True
        return _text_loops(text)

    return stop


def _text_loops(text: str) -> bool:
    """Free text that ends in a loop: a short pattern over and over, or a line or a few
    written `CODE_LOOP_ROUNDS` times in a row. Qwen2.5-Coder-1.5B wrote one test line of a
    patch fourteen times in a row and went on to 1,024 tokens, about 140 s, four steps in a
    row (sublist)."""
    return ends_in_loop(text) or ends_in_long_loop(text, CODE_LOOP_ROUNDS)


def _thought_stop(text: str) -> bool:
    """A thought ends with its paragraph, a code block, the start of a call, or a loop."""
    return THOUGHT_END.search(text.lstrip()) is not None or ends_in_loop(text)


def _line_stop(text: str) -> bool:
    """A lead's words but the last end with their line (`_think`), or as a thought does."""
    return "\n" in text.lstrip() or _thought_stop(text)


def _starts_call(piece: str) -> bool:
    return piece.lstrip().startswith(CALL_STARTS)


def _loop_stop(text: str) -> bool:
    return ends_in_loop(text)


def call_penalties(
    specs: Sequence[ToolSpec], history: Sequence[str], penalty: float
) -> list[float]:
    """The repetition penalty (nats) on each tool: the previous call's tool, and a tool
    without arguments called before in the job (its result would be the same: after
    repo_info, a refused answer and a hint to read say.py, Qwen2.5-Coder-1.5B called
    repo_info again)."""
    previous = history[-1] if history else None
    called = set(history)
    return [
        penalty if s.name == previous or (not s.arguments and s.name in called) else 0.0
        for s in specs
    ]


def _response_format_grammar(response_format: dict[str, Any]) -> str | None:
    """A GBNF grammar for smolagents' `response_format` (`json_schema` or `json_object`)."""
    schema: Any = None
    if response_format.get("type") == "json_schema":
        schema = response_format.get("json_schema", {}).get("schema")
    elif response_format.get("type") == "json_object":
        schema = {"type": "object"}
    if not isinstance(schema, dict):
        return None
    grammar = LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
    return str(grammar._grammar)


def build_embedded_model(config: ModelConfig) -> EmbeddedModel:
    """The embedded model for `config.model_id` (`embedded`, `embedded:NAME|PATH`)."""
    path = embedded_gguf(config.model_id)
    n_ctx = max(512, min(config.model_num_ctx, max_context(config.model_id)))
    return EmbeddedModel(
        load_llama(path, n_ctx),
        model_id=config.model_id,
        temperature=config.model_temperature,
        max_tokens=config.model_max_tokens,
    )
