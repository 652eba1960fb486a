"""The model boundary: a smolagents `Model` wrapper that never lets model trouble end a run.

How a problem reaches the model (smolagents 1.26, `ToolCallingAgent._step_stream`):
`generate()` never raises. When the inner model fails (HTTP error, timeout, refused
connection, malformed body) or its reply is unusable (no tool call, empty, unknown tool, wrong
argument names), it returns an `UnusableReply`: a `ChatMessage` without tool calls that carries
the explanation. The agent then calls `parse_tool_calls()`, which raises `ModelReplyError`;
smolagents wraps that in `AgentParsingError`, stores it on the step and goes on. On the next
step the model reads "Error: Error while parsing tool call from model output: Your last reply
could not be used: <reason>. <what to do>". The run ends by final answer, max steps or cancel.

Usable replies get their tool calls normalised: calls written as text are parsed
(`lsp_agent.models.tool_call_parsing`), arguments become dicts, positional values are named, digit
strings become integers where the tool wants one, and at most `max_calls_per_reply` calls are
kept. Prose without a call is an error observation unless `prose_is_final_answer=True`; text
that says it is the answer (`Final answer: …`, `{"answer": …}`) is the final answer.
When no tools are offered (smolagents' closing summary after max steps), text passes through.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
    Model,
)
from smolagents.monitoring import TokenUsage
from smolagents.tools import Tool

from lsp_agent.models.messages import past_calls
from lsp_agent.models.prompt_size import measured_chars_per_token, message_chars
from lsp_agent.models.robust.call_checks import check_call
from lsp_agent.models.robust.call_stats import reply_stats
from lsp_agent.models.robust.failures import (
    NO_CALL_REASON,
    FailureKind,
    classify_model_exception,
    example_call,
    recovery_text,
)
from lsp_agent.models.robust.fresh import StaleCheck, fresh_reply, leaving_out, stale_tools
from lsp_agent.models.tool_call_parsing import (
    ParsedCall,
    ParseFailure,
    has_words,
    normalise_arguments,
    parse_tool_calls_from_text,
    prose_before_call,
)

__all__ = [
    "EMPTY_TEXT_REPLY",
    "FAILED_TEXT_PREFIX",
    "FailureKind",
    "ModelEvent",
    "ModelReplyError",
    "RobustModel",
    "UnusableReply",
    "check_call",
    "classify_model_exception",
    "content_text",
    "example_call",
    "recovery_text",
]

logger = logging.getLogger(__name__)

# What a call without tools (a closing summary, a plan) returns when the model gave nothing.
EMPTY_TEXT_REPLY = "(the model gave an empty answer)"
FAILED_TEXT_PREFIX = "The model could not give a final answer:"


@dataclass(frozen=True)
class ModelEvent:
    """Something the boundary did: a failure turned into an observation, or a repair."""

    call_index: int
    kind: str
    detail: str


class ModelReplyError(ValueError):
    """Raised by `RobustModel.parse_tool_calls`; smolagents records it as a step error."""


@dataclass
class UnusableReply(ChatMessage):  # type: ignore[misc]
    """A reply the agent cannot act on; `problem` is the text the model will read next step."""

    problem: str = ""
    kind: str = ""


def content_text(content: Any) -> str:
    """A message's content as plain text (string or a list of text parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content)


class RobustModel(Model):  # type: ignore[misc]
    """Wrap `inner` so every reply is usable by `ToolCallingAgent` or a recoverable step error."""

    def __init__(
        self,
        inner: Model,
        *,
        prose_is_final_answer: bool = False,
        max_calls_per_reply: int = 1,
        max_echo_chars: int = 1000,
        on_event: Callable[[ModelEvent], None] | None = None,
    ) -> None:
        super().__init__(model_id=getattr(inner, "model_id", None))
        self.inner = inner
        self.prose_is_final_answer = prose_is_final_answer
        self.max_calls_per_reply = max_calls_per_reply
        self.max_echo_chars = max_echo_chars
        self.on_event = on_event
        self.events: list[ModelEvent] = []
        self.call_stats: list[dict[str, Any]] = []  # per request: `call_stats.reply_stats`
        self.generate_calls = 0
        # The agent's check of a reply that only repeats what its job tried (`fresh`), set
        # before each of its steps: such a reply is decoded again, hotter.
        self.stale_reply: StaleCheck | None = None
        # The temperature of a job's later attempt (`agent.fresh_start`: a fresh draw, not
        # the configured near-greedy decode that failed); None: the model's own.
        self.attempt_temperature: float | None = None
        self.input_tokens = 0
        self.output_tokens = 0
        # characters a prompt token, as this model counted its requests (the least seen;
        # None until one is measured, or for a model whose counts are estimates)
        self.chars_per_token: float | None = None
        self.first_call_unreachable = False

    @property
    def context_length(self) -> int | None:
        """The inner model's own context window, when it has one (the embedded model)."""
        length = getattr(self.inner, "context_length", None)
        return int(length) if length else None

    def offer_argument_choices(self, choices: Callable[[], dict[str, Any]]) -> None:
        """Models that constrain arguments (the embedded one) get `choices()` (argument name
        -> allowed values, or a function of the call's arguments so far giving them), asked
        afresh for every reply; others ignore it."""
        if hasattr(self.inner, "argument_choices"):
            self.inner.argument_choices = choices

    def watch_cancel(self, cancel: threading.Event) -> None:
        """Models that can stop a reply half-written (the embedded one) stop it once
        `cancel` (the job's) is set; others finish the request under way."""
        if hasattr(self.inner, "cancel"):
            self.inner.cancel = cancel

    def shape_text_replies(self, start: str, block: str) -> None:
        """Models whose replies can be begun and continued for them (the embedded one) begin
        each reply in text (not a tool call, not a structured reply) with `start`, and go on
        from `block` when one ends without a code block (`embedded.text_reply`); others
        ignore it."""
        if hasattr(self.inner, "reply_shape"):
            from lsp_agent.models.embedded.text_reply import ReplyShape

            self.inner.reply_shape = ReplyShape(start, block)

    @property
    def token_usage(self) -> TokenUsage:
        """Prompt and completion tokens of every reply so far."""
        return TokenUsage(input_tokens=self.input_tokens, output_tokens=self.output_tokens)

    def generate(
        self,
        messages: list[ChatMessage | dict[str, Any]],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, str] | None = None,
        tools_to_call_from: list[Tool] | None = None,
        **kwargs: Any,
    ) -> ChatMessage:
        if self.attempt_temperature is not None and "temperature" not in kwargs:
            kwargs["temperature"] = self.attempt_temperature

        def once(**extra: Any) -> ChatMessage:
            return self._generate_once(
                messages, stop_sequences, response_format, tools_to_call_from, **{**kwargs, **extra}
            )

        reply = once()
        stale = self.stale_reply
        varies = getattr(self.inner, "varies_with_temperature", True)  # not a replay
        if stale is None or not varies or isinstance(reply, UnusableReply):
            return reply

        @functools.cache
        def repeated() -> frozenset[str]:  # of the first reply: the same for each decode again
            return stale_tools(reply, tools_to_call_from or [], past_calls(messages))

        def again(temperature: float) -> ChatMessage:
            counted = len(self.call_stats)
            with leaving_out(self.inner, repeated()) as narrowed:
                # narrowed, the constraint differs: no heat is needed (`fresh`)
                hotter = max(temperature, kwargs.get("temperature") or 0.0)
                fresh = once() if narrowed else once(temperature=hotter)
            if len(self.call_stats) > counted and not narrowed:  # a hotter decode again
                self.call_stats[-1]["temperature"] = hotter
            return fresh

        return fresh_reply(
            reply,
            again,
            stale,
            lambda why: self._record("decoded again", why),
            usable=lambda fresh: not isinstance(fresh, UnusableReply),
        )

    def _generate_once(
        self,
        messages: list[ChatMessage | dict[str, Any]],
        stop_sequences: list[str] | None,
        response_format: dict[str, str] | None,
        tools_to_call_from: list[Tool] | None,
        **kwargs: Any,
    ) -> ChatMessage:
        self.generate_calls += 1
        tools = {t.name: t for t in tools_to_call_from} if tools_to_call_from else None
        started = time.monotonic()
        try:
            reply = self.inner.generate(
                messages,
                stop_sequences=stop_sequences,
                response_format=response_format,
                tools_to_call_from=tools_to_call_from,
                **kwargs,
            )
        except Exception as exc:  # the boundary: whatever the model side raises is an observation
            kind, reason = classify_model_exception(exc)
            logger.warning("model call %d failed (%s): %.300s", self.generate_calls, kind, exc)
            if kind is FailureKind.UNREACHABLE and self.generate_calls == 1:
                self.first_call_unreachable = True
            return self._unusable(kind, reason, tools, "", TokenUsage(0, 0))
        self.call_stats.append(reply_stats(reply, time.monotonic() - started))
        if logger.isEnabledFor(logging.DEBUG):  # LOG_LEVEL=DEBUG: what the model really sent
            raw = reply.raw if isinstance(reply.raw, dict) else {}
            logger.debug(
                "model reply %d: %r; calls %s; %s",
                self.generate_calls,
                raw.get("text", content_text(reply.content))[:2000],
                [(c.function.name, c.function.arguments) for c in reply.tool_calls or []],
                {k: v for k, v in raw.items() if k != "text"} or reply_stats(reply, 0.0),
            )
        usage = reply.token_usage
        if usage is not None:
            self.input_tokens += usage.input_tokens
            self.output_tokens += usage.output_tokens
            self._measure(messages, usage.input_tokens)
        text = content_text(reply.content)
        if tools is None:
            answer = text if text.strip() else EMPTY_TEXT_REPLY
            return ChatMessage(
                role=MessageRole.ASSISTANT, content=answer, raw=reply.raw, token_usage=usage
            )
        return self._with_checked_calls(reply, text, tools, usage)

    def _measure(self, messages: list[ChatMessage | dict[str, Any]], prompt_tokens: int) -> None:
        """Keep the least characters-per-token ratio of a request (`prompt_size`)."""
        if not getattr(self.inner, "counts_tokens", True):
            return  # a scripted replay's counts are estimates themselves
        ratio = measured_chars_per_token(message_chars(messages), prompt_tokens)
        if ratio is not None:
            known = self.chars_per_token
            self.chars_per_token = ratio if known is None else min(known, ratio)

    def _with_checked_calls(
        self, reply: ChatMessage, text: str, tools: Mapping[str, Tool], usage: TokenUsage | None
    ) -> ChatMessage:
        notes: list[str] = []
        calls: list[ParsedCall]
        ids: list[str] = []
        replayed = text
        if reply.tool_calls:
            calls = [self._from_native(tc, notes) for tc in reply.tool_calls]
            ids = [str(tc.id or "") for tc in reply.tool_calls]
        else:
            result = parse_tool_calls_from_text(text, {n: list(t.inputs) for n, t in tools.items()})
            if isinstance(result, ParseFailure):
                if not has_words(text):  # nothing, or only tags (`<tools></tools>`)
                    return self._unusable(
                        FailureKind.EMPTY_REPLY, "it was empty", tools, text, usage
                    )
                if not (self.prose_is_final_answer and "final_answer" in tools):
                    reason = result.reason
                    if reason.startswith("no tool call"):
                        reason = NO_CALL_REASON
                    return self._unusable(FailureKind.NO_TOOL_CALL, reason, tools, text, usage)
                calls = [ParsedCall("final_answer", {"answer": text.strip()})]
                notes.append("took prose without a call as the final answer")
            else:
                calls, notes = list(result.calls), list(result.repairs)
                # replayed once, as the native call below: with the text too, the template
                # showed each call twice, and Qwen2.5-Coder-1.5B through llama-server repeated
                # its previous call (L4: read_file("config.py") three times)
                replayed = prose_before_call(text)
        if len(calls) > self.max_calls_per_reply:
            notes.append(f"kept the first {self.max_calls_per_reply} of {len(calls)} calls")
            calls = calls[: self.max_calls_per_reply]
        if len(calls) > 1 and any(c.name == "final_answer" for c in calls):
            reason = "final_answer must be the only call in its reply"
            return self._unusable(FailureKind.BAD_ARGUMENTS, reason, tools, text, usage)
        checked = [check_call(call, tools, notes) for call in calls]
        problems = [c for c in checked if isinstance(c, str)]
        if problems:
            unknown = any(p.startswith("there is no tool") for p in problems)
            kind = FailureKind.UNKNOWN_TOOL if unknown else FailureKind.BAD_ARGUMENTS
            return self._unusable(kind, "; ".join(problems), tools, text, usage)
        if notes:
            self._record("repaired", "; ".join(dict.fromkeys(notes)))
        tool_calls = [
            ChatMessageToolCall(
                id=(ids[i] if i < len(ids) and ids[i] else f"call_{uuid.uuid4().hex[:12]}"),
                type="function",
                function=ChatMessageToolCallFunction(name=c.name, arguments=c.arguments),
            )
            for i, c in enumerate(checked)
            if isinstance(c, ParsedCall)
        ]
        return ChatMessage(
            role=MessageRole.ASSISTANT,
            content=self._echo(replayed),
            tool_calls=tool_calls,
            raw=reply.raw,
            token_usage=usage,
        )

    @staticmethod
    def _from_native(tool_call: ChatMessageToolCall, notes: list[str]) -> ParsedCall:
        name = str(tool_call.function.name or "").strip().removeprefix("functions.")
        arguments = normalise_arguments(tool_call.function.arguments)
        notes += arguments.notes
        return ParsedCall(name, arguments.named, arguments.positional, arguments.error)

    def _unusable(
        self,
        kind: FailureKind,
        reason: str,
        tools: Mapping[str, Tool] | None,
        text: str,
        usage: TokenUsage | None,
    ) -> UnusableReply:
        self._record(kind.value, reason)
        problem = recovery_text(reason, tools)
        if tools is None:  # a closing summary: this text becomes the run's answer
            return UnusableReply(
                role=MessageRole.ASSISTANT,
                content=f"{FAILED_TEXT_PREFIX} {reason}.",
                problem=problem,
                kind=kind.value,
                token_usage=usage,
            )
        return UnusableReply(
            role=MessageRole.ASSISTANT,
            content=self._echo(text),
            token_usage=usage if usage is not None else TokenUsage(0, 0),
            problem=problem,
            kind=kind.value,
        )

    def _echo(self, text: str) -> str | None:
        """The reply text as it will be replayed to the model: stripped, capped, None if empty."""
        echo = text.strip()
        if len(echo) > self.max_echo_chars:
            cut = len(echo) - self.max_echo_chars
            echo = echo[: self.max_echo_chars] + f" … [{cut} more characters cut]"
        return echo or None

    def _record(self, kind: str, detail: str) -> None:
        event = ModelEvent(self.generate_calls, kind, detail)
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    def parse_tool_calls(self, message: ChatMessage) -> ChatMessage:
        """Called by the agent for a reply without tool calls: raise what the model should read."""
        if isinstance(message, UnusableReply):
            raise ModelReplyError(message.problem)
        if message.tool_calls:
            for tool_call in message.tool_calls:
                arguments = normalise_arguments(tool_call.function.arguments)
                tool_call.function.arguments = arguments.named
            return message
        result = parse_tool_calls_from_text(content_text(message.content))
        if isinstance(result, ParseFailure):
            raise ModelReplyError(recovery_text(result.reason, None))
        message.role = MessageRole.ASSISTANT
        message.tool_calls = [
            ChatMessageToolCall(
                id=f"call_{uuid.uuid4().hex[:12]}",
                type="function",
                function=ChatMessageToolCallFunction(name=c.name, arguments=c.arguments),
            )
            for c in result.calls
        ]
        return message
