"""Read a server's reply as a stream and stop it where a complete call ends.

Small models that write their calls as text do not stop after one. Qwen2.5-Coder-1.5B behind
`llama-server --jinja` writes a fenced call, then the calls it imagines next; with
`tool_choice: "required"` it then wrote newlines until `max_tokens` (1,024 tokens, 33 s, on
every step), and an answer that loops (`42.0.0.0…`) runs to the limit too. Stop sequences
cannot see a call end. So the request is streamed, and reading stops when

- the text so far holds a complete call (`tool_call_parsing.stream_cut.complete_call_end`)
  and goes on after it (more words, another call, newlines; a closing fence aside),
- or it ends in a loop (a short pattern over and over, or a longer one, a sentence or a
  few lines, three times in a row),

and the connection is closed, which makes llama.cpp's server (and vLLM, Ollama) stop
generating. Native tool-call deltas are read to the end (the server parsed them). The chunks
read are put back together by LiteLLM into one response, as a non-streamed request gives.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from typing import Any

from lsp_agent.models.tool_call_parsing.stream_cut import complete_call_end

__all__ = ["before_stops", "ends_in_long_loop", "ends_in_loop", "read_stream", "trim_loop"]

log = logging.getLogger(__name__)

LOOP_MIN_CHARS = 48
LOOP_MAX_PERIOD = 12
# A server's text reply also loops in sentences and lines: a pattern of up to this many
# characters, three times in a row, ends it. The embedded model's free text (code mode's
# replies) ends at four rounds (`CODE_LOOP_ROUNDS`: code may repeat a line or two on
# purpose); its call arguments use `ends_in_loop` alone.
LONG_LOOP_MAX_PERIOD = 240
LONG_LOOP_ROUNDS = 3
CODE_LOOP_ROUNDS = 4
DIGITS = re.compile(r"[0-9]")
NEWLINES_AFTER_A_CALL = 3  # "}\n```\n\n": the fence closed, and padding has begun


def before_stops(text: str, stops: Iterable[str]) -> str:
    """`text` up to its first stop sequence, the stop left out, as a server sends it."""
    for stop in stops:
        text = text.split(stop, 1)[0]
    return text


def _periodic(tail: str) -> bool:
    return any(tail[period:] == tail[:-period] for period in range(1, LOOP_MAX_PERIOD + 1))


def ends_in_loop(text: str, *, min_chars: int = LOOP_MIN_CHARS) -> bool:
    """Whether the last `min_chars` characters of `text` repeat one pattern of at most
    `LOOP_MAX_PERIOD` characters (`abcabcabc…`, `\\n\\n\\n…`), or the last twice as many do
    with every digit taken as the same (a counting loop: `(1)7(1)8(1)9(1)0…`)."""
    tail = text[-min_chars:]
    if len(tail) < min_chars:
        return False
    if _periodic(tail):
        return True
    longer = text[-2 * min_chars :]
    return len(longer) == 2 * min_chars and _periodic(DIGITS.sub("#", longer))


def _long_period(text: str, rounds: int = LONG_LOOP_ROUNDS) -> int | None:
    """The length of the pattern `text` ends in `rounds` rounds of, when it is longer than
    `LOOP_MAX_PERIOD` and at most `LONG_LOOP_MAX_PERIOD` characters."""
    longest = min(LONG_LOOP_MAX_PERIOD, len(text) // rounds)
    for period in range(LOOP_MAX_PERIOD + 1, longest + 1):
        tail = text[-rounds * period :]
        if tail[period:] == tail[:-period]:
            return period
    return None


def ends_in_long_loop(text: str, rounds: int = LONG_LOOP_ROUNDS) -> bool:
    """Whether `text` ends in `rounds` rounds of one pattern longer than `LOOP_MAX_PERIOD`
    and at most `LONG_LOOP_MAX_PERIOD` characters long ("The answer is 42. The answer is 42.
    The answer is 42."; a line of code written over and over)."""
    return _long_period(text, rounds) is not None


def trim_loop(text: str) -> str:
    """`text` with a looping tail cut back to its first round (`42.0.0.0.0…` -> `42.0`; a
    sentence said three times in a row -> said once)."""
    for period in range(1, LOOP_MAX_PERIOD + 1):
        tail = text[-LOOP_MIN_CHARS:]
        if len(tail) < LOOP_MIN_CHARS or tail[period:] != tail[:-period]:
            continue
        return _first_round(text, period)
    long_period = _long_period(text)
    if long_period is None:
        return text
    # the round ends wherever reading stopped: keep whole sentences or lines only
    kept = _first_round(text, long_period)
    end = max(kept.rfind(mark) for mark in ".!?\n")
    return kept[: end + 1] if end > 0 else kept


def _first_round(text: str, period: int) -> str:
    end = len(text)
    while end >= 2 * period and text[end - 2 * period : end - period] == text[end - period : end]:
        end -= period
    return text[:end]


def goes_on_after_the_call(rest: str) -> bool:
    """Whether the reply goes on after its complete call: words or another call after it (a
    fence closing the call aside), or newlines. A reply that simply ends is read to its end,
    so that the server's own figures (tokens, its cache) arrive with it."""
    after = rest.lstrip()
    if after.startswith("```"):
        after = after[3:]
    return bool(after.strip()) or rest.count("\n") >= NEWLINES_AFTER_A_CALL


def _content(chunk: Any) -> str:
    choices = getattr(chunk, "choices", None) or []
    delta = getattr(choices[0], "delta", None) if choices else None
    return str(getattr(delta, "content", None) or "")


def read_stream(
    stream: Iterable[Any], rebuild: Callable[[list[Any]], Any]
) -> tuple[Any, str | None]:
    """The response rebuilt from the chunks read, and why reading stopped early (None: the
    server ended it). `rebuild` is LiteLLM's `stream_chunk_builder` with the messages."""
    chunks: list[Any] = []
    text = ""
    cut: str | None = None
    for chunk in stream:
        chunks.append(chunk)
        piece = _content(chunk)
        if not piece:
            continue
        text += piece
        end = complete_call_end(text)
        if end is not None and goes_on_after_the_call(text[end:]):
            cut = "after a complete call"
        elif ends_in_loop(text) or ends_in_long_loop(text):
            cut = "in a loop"
        if cut is not None:
            break
    if cut is not None:
        close = getattr(getattr(stream, "completion_stream", None), "close", None)
        close = close or getattr(stream, "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # closing is a courtesy to the server; the reply is complete
                log.debug("closing a cut stream failed", exc_info=True)
    return rebuild(chunks), cut
