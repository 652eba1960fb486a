"""A reply in text that must be a thought and a code block (code mode), for a model whose
reply can be begun for it and continued (the embedded one).

Asked for "one short thought, then one ```python block", Qwen2.5-Coder-1.5B copied the task
message back instead (25 of 25 steps of an Exercism job), or wrote its thought and ended the
reply there, and the next reply copied the format example of the parse error ("# Your python
code here"). Begun with `ReplyShape.start` ("Thought:") it writes its thought; a reply that
ends without a code block goes on from `ReplyShape.block` (the opening fence), so every
reply holds code, which the model writes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lsp_agent.models.embedded.decoder import Decoder, Generation
from lsp_agent.models.streamed_reply import before_stops

FENCE = "```"


@dataclass(frozen=True)
class ReplyShape:
    start: str  # the reply's first words
    block: str  # the opening fence a reply without a code block goes on from


def shaped_generation(
    decoder: Decoder,
    tokens: Callable[[str], list[int]],
    prompt: Sequence[int],
    shape: ReplyShape,
    *,
    max_tokens: int,
    temperature: float,
    stop: Callable[[str], bool],
    stops: Sequence[str] = (),
) -> Generation:
    """The reply after `prompt`, begun with `shape.start`; when it ends (its end token, or a
    stop sequence) without a code block, it goes on from `shape.block`. The text returned is
    the whole reply, its begun words included."""
    lead = [*prompt, *tokens(shape.start)]
    first = decoder.generate(lead, max_tokens=max_tokens, temperature=temperature, stop=stop)
    words = before_stops(first.text, stops)
    if FENCE in words or first.finish_reason == "length":
        return Generation(shape.start + first.text, first.tokens, first.finish_reason, first.load)
    words = words.rstrip() + "\n"
    room = max_tokens - len(first.tokens)
    more = decoder.generate(
        [*lead, *tokens(words + shape.block)],
        max_tokens=max(room, 1),
        temperature=temperature,
        stop=stop,
    )
    return Generation(
        shape.start + words + shape.block + more.text,
        [*first.tokens, *more.tokens],
        more.finish_reason,
        first.load,
    )
