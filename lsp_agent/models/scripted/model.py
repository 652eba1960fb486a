"""A deterministic smolagents `Model` that replies from a script (see `script.py`)."""

from __future__ import annotations

import threading
import time
import uuid
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
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

from lsp_agent.models.scripted.script import (
    ScriptTurn,
    exhausted_turn,
    load_script,
    parse_script,
)
from lsp_agent.models.streamed_reply import before_stops


class ScriptedModelError(RuntimeError):
    """What an `{"error": ...}` turn raises: like a provider error, with an HTTP status."""

    def __init__(self, message: str, status_code: int = 500) -> None:
        super().__init__(message)
        self.status_code = status_code


@dataclass(frozen=True)
class RecordedModelCall:
    """One `generate` call: what the agent sent and which tools it offered."""

    messages: list[Any]
    tool_names: list[str]
    stop_sequences: list[str] | None
    kwargs: dict[str, Any] = field(default_factory=dict)

    def text(self) -> str:
        """All message text joined (handy for asserting what the model was told)."""
        return "\n".join(_message_text(m) for m in self.messages)


def _message_text(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else message.content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def _plain_text(turn: ScriptTurn) -> str:
    """A turn as plain text: its text, else a final answer's answer, else the call as JSON."""
    if turn.text is not None or not turn.calls:
        return turn.text or ""
    call = turn.calls[0]
    if call.name == "final_answer" and isinstance(call.arguments, dict):
        return str(call.arguments.get("answer", ""))
    return call.arguments_text()


def _estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


class ScriptedModel(Model):  # type: ignore[misc]
    """Replies with the queued turns in order; records every call in `.calls`.

    Tool calls are native (`ChatMessageToolCall`, arguments as dicts or, for string arguments,
    the raw text). Error turns raise `ScriptedModelError` (with `status_code`); a dropped
    connection raises `ConnectionError`. Once the script is used up every reply is a
    `final_answer` saying so: the model never raises for lack of turns. A call without tools
    (smolagents' closing summary after max steps) also takes the next turn, as plain text.

    A script is a replay: its next turn does not depend on the temperature asked for, so a
    stale reply is not decoded again (`models.robust.fresh`) unless `varies_with_temperature`
    says the script stands for those decodes too.
    """

    counts_tokens = False  # its token usage is characters / 4, not a count (`prompt_size`)

    def __init__(
        self,
        turns: Iterable[Any] = (),
        *,
        model_id: str = "scripted",
        varies_with_temperature: bool = False,
    ) -> None:
        super().__init__(model_id=model_id)
        self.varies_with_temperature = varies_with_temperature
        self._turns: deque[ScriptTurn] = deque(parse_script(turns))
        self._lock = threading.Lock()
        self.calls: list[RecordedModelCall] = []

    @classmethod
    def from_json(cls, path: Path | str) -> ScriptedModel:
        """Load a JSON list of turns (`MODEL_ID=scripted:PATH`)."""
        return cls(load_script(Path(path)), model_id=f"scripted:{path}")

    def add_turns(self, turns: Iterable[Any]) -> None:
        parsed = parse_script(turns)
        with self._lock:
            self._turns.extend(parsed)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._turns)

    @property
    def call_count(self) -> int:
        return len(self.calls)

    def generate(self, messages: list[ChatMessage | dict[str, Any]], **options: Any) -> ChatMessage:
        """The next turn, as a real model would answer it (smolagents passes `options` by
        keyword: `stop_sequences`, `response_format`, `tools_to_call_from`, ...)."""
        stop_sequences = options.pop("stop_sequences", None)
        tools_to_call_from: list[Tool] | None = options.pop("tools_to_call_from", None)
        options.pop("response_format", None)
        tool_names = [t.name for t in tools_to_call_from or []]
        with self._lock:
            call = RecordedModelCall(list(messages), tool_names, stop_sequences, options)
            self.calls.append(call)
            turn = self._turns.popleft() if self._turns else exhausted_turn(len(self.calls) - 1)
        if turn.delay_s:
            time.sleep(turn.delay_s)
        if turn.drop_connection:
            raise ConnectionError("scripted: the connection was dropped")
        if turn.error is not None:
            raise ScriptedModelError(turn.error, turn.status)
        if turn.raw_body is not None:
            raise ScriptedModelError(f"malformed response body: {turn.raw_body[:200]}", 500)
        prompt_tokens = _estimate_tokens("".join(_message_text(m) for m in messages))
        if not tools_to_call_from:  # a plain completion (e.g. the summary after max steps)
            return self._reply(_cut_at_stop(_plain_text(turn), stop_sequences), None, prompt_tokens)
        tool_calls = [
            ChatMessageToolCall(
                id=f"call_{uuid.uuid4().hex[:12]}",
                type="function",
                function=ChatMessageToolCallFunction(name=call.name, arguments=call.arguments),
            )
            for call in turn.calls
        ]
        return self._reply(turn.text, tool_calls or None, prompt_tokens)

    @staticmethod
    def _reply(
        text: str | None, tool_calls: list[ChatMessageToolCall] | None, prompt_tokens: int
    ) -> ChatMessage:
        completion = (text or "") + "".join(
            f"{c.function.name}{c.function.arguments}" for c in tool_calls or []
        )
        return ChatMessage(
            role=MessageRole.ASSISTANT,
            content=text,
            tool_calls=tool_calls,
            token_usage=TokenUsage(
                input_tokens=prompt_tokens, output_tokens=_estimate_tokens(completion)
            ),
        )


def _cut_at_stop(text: str | None, stop_sequences: list[str] | None) -> str | None:
    """`text` up to its first stop sequence, as a server sends it (the stop left out): code
    mode's closing fence once also matched a reply's opening fence, which real models cut
    and scripted ones did not."""
    return None if text is None else before_stops(text, stop_sequences or ())
