"""The embedded model's one decode loop: evaluate a prompt reusing the KV cache, then sample.

Every token the embedded model reads or writes passes through `Decoder`:

- `load(tokens)` keeps the longest prefix already in llama.cpp's KV cache and evaluates only
  the rest (an agent's prompt grows at the end from step to step, so a step pays for its new
  messages only) and says how many tokens were reused and how many were evaluated;
- `generate(...)` samples token by token, each through an optional grammar (check-first,
  `grammar_sampler`), until an end-of-generation token, a grammar that is complete (llama.cpp
  then admits only end-of-generation), `stop(text)` or `max_tokens`.

Threads follow the machine's load (`threads.free_threads`, asked at every `load`).

`on_decode_step` (a callable, or None) runs between two decode steps while the model lock is
held: the place for a scheduler that lets other work use the same model between tokens.

A generation in a `cancelled_by(event)` block stops at the next token once `event` is set
(`GenerationCancelled`): a cancelled job's reply is dropped at once, not written to its end
(a 600-token version takes a minute on 2 cores; a cancel or a bench's time limit waited for
it, then for the sandbox check of what it wrote).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import llama_cpp

from lsp_agent.models.embedded.grammar_sampler import (
    CheckFirstSampler,
    ConstrainedLlama,
    Sampler,
    SamplingParams,
)
from lsp_agent.models.embedded.threads import free_threads

__all__ = ["Decoder", "Generation", "GenerationCancelled", "PromptLoad", "cancelled_by"]

_watched = threading.local()  # the cancel event of the thread's generation, if any


class GenerationCancelled(RuntimeError):
    """The job that asked for this generation was cancelled."""


@contextmanager
def cancelled_by(event: threading.Event | None) -> Iterator[None]:
    """Generations in this thread, inside the block, stop once `event` is set."""
    before = getattr(_watched, "event", None)
    _watched.event = event
    try:
        yield
    finally:
        _watched.event = before


def _check_cancel() -> None:
    event = getattr(_watched, "event", None)
    if event is not None and event.is_set():
        raise GenerationCancelled("the job was cancelled while the model was writing")


@dataclass
class PromptLoad:
    """How a prompt was brought into the KV cache."""

    tokens: int = 0
    reused: int = 0  # already in the cache from an earlier call
    evaluated: int = 0  # run through the model now
    wasted: int = 0  # tokens generated and then dropped (words before a call)


@dataclass
class Generation:
    """What `Decoder.generate` wrote."""

    text: str
    tokens: list[int] = field(default_factory=list)
    finish_reason: str = "stop"  # "stop" (end token or complete grammar), "cut", "length"
    load: PromptLoad = field(default_factory=PromptLoad)


class Decoder:
    """Prompt evaluation with prefix reuse and the sampling loop, over one loaded model."""

    def __init__(self, llama: ConstrainedLlama, *, large: bool = False) -> None:
        self.llama = llama
        self.large = large
        self.threads = (0, 0)
        self.on_decode_step: Callable[[], None] | None = None

    def fit_threads(self) -> tuple[int, int]:
        """Use the cores free now (`threads`): for the prompt, and for decoding when a
        token is work enough to split (a large model). Returns (decode, prompt) threads."""
        free = free_threads()
        wanted = (free if self.large else 1, free)
        if wanted != self.threads:
            llama_cpp.llama_set_n_threads(self.llama.ctx, *wanted)
            self.threads = wanted
        return wanted

    def load(self, tokens: Sequence[int]) -> PromptLoad:
        """Evaluate `tokens`, reusing the cached prefix; the last logits are then theirs.

        At least one token is evaluated, so the logits are fresh."""
        self.fit_threads()
        llama = self.llama
        cached = llama.input_ids[: llama.n_tokens].tolist()
        common = 0
        for old, new in zip(cached, tokens, strict=False):
            if old != new:
                break
            common += 1
        common = min(common, len(tokens) - 1)
        self.truncate(common)
        llama.eval(list(tokens[common:]))
        return PromptLoad(tokens=len(tokens), reused=common, evaluated=len(tokens) - common)

    def truncate(self, length: int) -> None:
        """Forget every evaluated token from `length` on."""
        self.llama.n_tokens = length
        self.llama._ctx.kv_cache_seq_rm(-1, length, -1)

    def sampler(self, temperature: float, grammar: str | None = None) -> Sampler:
        """A sampler at `temperature` (greedy at 0), constrained by `grammar` (GBNF) if given."""
        llama = self.llama
        kind = CheckFirstSampler if grammar is not None else Sampler
        return kind(llama._model, grammar, SamplingParams(temperature, seed=int(llama._seed)))

    def first_token(self, prompt: Sequence[int], temperature: float) -> tuple[int, PromptLoad]:
        """The token the model would write first after `prompt` (sampled, not committed)."""
        load = self.load(prompt)
        sampler = self.sampler(temperature)
        try:
            return sampler.sample(self.llama._ctx, -1), load
        finally:
            sampler.close()

    def piece(self, tokens: Sequence[int]) -> bytes:
        return bytes(self.llama.detokenize(list(tokens), special=False))

    def is_end(self, token: int) -> bool:
        return bool(llama_cpp.llama_vocab_is_eog(self.llama._model.vocab, token))

    def generate(
        self,
        prompt: Sequence[int],
        *,
        max_tokens: int,
        temperature: float,
        grammar: str | None = None,
        stop: Callable[[str], bool] | None = None,
        first: int | None = None,
    ) -> Generation:
        """Sample after `prompt` (see the module doc); `first` forces the first token."""
        load = self.load(prompt)
        sampler = self.sampler(temperature, grammar)
        written: list[int] = []
        data = b""
        finish = "length"
        try:
            while len(written) < max_tokens:
                _check_cancel()
                if self.on_decode_step is not None:
                    self.on_decode_step()
                if first is not None and not written:
                    token = first
                    sampler.accept_forced(token)
                else:
                    token = sampler.sample(self.llama._ctx, -1)
                if self.is_end(token):
                    finish = "stop"
                    break
                written.append(token)
                data += self.piece([token])
                self.llama.eval([token])
                if stop is not None and stop(data.decode("utf-8", errors="ignore")):
                    finish = "cut"
                    break
        finally:
            sampler.close()
        return Generation(data.decode("utf-8", errors="replace"), written, finish, load)
