"""One loaded model serving the agent and inline completions, each in its own llama.cpp context.

`shared_model(path, n_ctx)` returns the process's `SharedModel` for a GGUF file: the agent's
`LoadedModel` (`loader.load_llama`, so an agent job on the same file and context length uses
the very same weights) and a `DecodeGate`. The first `completion_context()` call

- puts the agent's context behind the gate (its `decode` takes one agent step per call) and
  makes its prompt batches `AGENT_STEP_TOKENS` long, so a completion waits at most for one
  short agent step (`llama-cpp-python`'s default 512-token batch is seconds on a CPU);
- creates a second llama.cpp context on the same `llama_model` (the weights are not loaded
  again), whose decode calls take completion steps.

`CompletionContext` keeps what its KV cache holds. `prepare(tokens)` keeps the longest common
start with the previous prompt and decodes only the rest, in `PROMPT_STEP_TOKENS` batches, so a
keystroke at the end of the prompt costs its few new tokens. It stops between batches when
told to (cancel, or the prompt budget), keeping what it has read: the next request goes on
from there. `append(token)` decodes one generated token; `logits()` gives the last row.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import llama_cpp
import numpy as np
import numpy.typing as npt
from llama_cpp import _internals as internals

from lsp_agent.models.embedded.decode_gate import DecodeGate
from lsp_agent.models.embedded.loader import (
    EmbeddedModelError,
    LoadedModel,
    embedded_gguf,
    load_llama,
    max_context,
)
from lsp_agent.models.embedded.threads import free_threads

MIN_AGENT_CONTEXT = 512  # the agent's context when the agent uses another model
AGENT_STEP_TOKENS = 64
PROMPT_STEP_TOKENS = 64


@dataclass(frozen=True)
class Vocabulary:
    """The special tokens a fill-in-the-middle prompt needs (-1 when the model has none)."""

    fim_prefix: int
    fim_suffix: int
    fim_middle: int
    repo_name: int
    file_sep: int
    bos: int
    add_bos: bool

    @property
    def has_fim(self) -> bool:
        return min(self.fim_prefix, self.fim_suffix, self.fim_middle) >= 0


def vocabulary(model: internals.LlamaModel) -> Vocabulary:
    """The FIM special tokens llama.cpp found in `model`'s GGUF file (by id or by text)."""
    v = model.vocab
    return Vocabulary(
        fim_prefix=int(llama_cpp.llama_vocab_fim_pre(v)),
        fim_suffix=int(llama_cpp.llama_vocab_fim_suf(v)),
        fim_middle=int(llama_cpp.llama_vocab_fim_mid(v)),
        repo_name=int(llama_cpp.llama_vocab_fim_rep(v)),
        file_sep=int(llama_cpp.llama_vocab_fim_sep(v)),
        bos=int(llama_cpp.llama_vocab_bos(v)),
        add_bos=bool(llama_cpp.llama_vocab_get_add_bos(v)),
    )


@dataclass
class Prepared:
    """What `prepare` did: tokens reused from the cache, decoded now, and whether it finished."""

    reused: int
    decoded: int
    complete: bool


class CompletionContext:
    """A second context on a shared model, for completions (see the module doc)."""

    def __init__(self, loaded: LoadedModel, gate: DecodeGate, n_ctx: int) -> None:
        self.loaded = loaded
        self.gate = gate
        model = loaded.llama._model
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = n_ctx
        params.n_batch = PROMPT_STEP_TOKENS
        params.n_ubatch = PROMPT_STEP_TOKENS
        params.n_threads = params.n_threads_batch = 1  # `fit_threads` sets them per request
        self.n_ctx = n_ctx
        self._ctx = internals.LlamaContext(model=model, params=params, verbose=False)
        self._batch = internals.LlamaBatch(n_tokens=PROMPT_STEP_TOKENS, embd=0, n_seq_max=1)
        self._vocab = model.vocab
        self._n_vocab = int(model.n_vocab())
        self._piece_buffer = ctypes.create_string_buffer(64)
        self.tokens: list[int] = []
        self.threads = (1, 1)
        # One request at a time uses this context; the next waits for the previous to stop.
        self.lock = threading.Lock()

    def vocabulary(self) -> Vocabulary:
        return vocabulary(self.loaded.llama._model)

    def tokenize(self, text: str) -> list[int]:
        """`text` as tokens, special-token text read as plain text (file content is untrusted)."""
        if not text:
            return []
        return list(self.loaded.llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def piece(self, token: int) -> bytes:
        """The bytes of one token (a piece may end inside a UTF-8 character)."""
        size = len(self._piece_buffer)
        n = llama_cpp.llama_token_to_piece(self._vocab, token, self._piece_buffer, size, 0, False)
        if n < 0:  # the piece is longer than the buffer: -n is its length
            self._piece_buffer = ctypes.create_string_buffer(-n)
            return self.piece(token)
        return bytes(self._piece_buffer.raw[:n])

    def is_end(self, token: int) -> bool:
        return bool(llama_cpp.llama_vocab_is_eog(self._vocab, token))

    def fit_threads(self) -> None:
        """The agent's rule (`Decoder.fit_threads`): the cores free now for the prompt, and for
        decoding when a token is work enough to split (a large model)."""
        free = free_threads()
        wanted = (free if self.loaded.large else 1, free)
        if wanted != self.threads:
            llama_cpp.llama_set_n_threads(self._ctx.ctx, *wanted)
            self.threads = wanted

    def prepare(self, tokens: Sequence[int], should_stop: Callable[[], bool]) -> Prepared:
        """Make the KV cache hold `tokens` with logits for the last one (see the module doc)."""
        self.fit_threads()
        if not tokens:
            raise ValueError("an empty prompt")
        if len(tokens) >= self.n_ctx:
            raise ValueError(f"a prompt of {len(tokens)} tokens in a context of {self.n_ctx}")
        common = 0
        for old, new in zip(self.tokens, tokens, strict=False):
            if old != new:
                break
            common += 1
        common = min(common, len(tokens) - 1)  # decode at least one token: fresh logits
        self._forget_from(common)
        reused = common
        while len(self.tokens) < len(tokens):
            if should_stop():
                return Prepared(reused, len(self.tokens) - reused, complete=False)
            start = len(self.tokens)
            self._decode(tokens[start : start + PROMPT_STEP_TOKENS], start)
        return Prepared(reused, len(tokens) - reused, complete=True)

    def append(self, token: int) -> None:
        """Decode one generated token after what the cache holds."""
        if len(self.tokens) + 1 >= self.n_ctx:
            raise ValueError("the completion context is full")
        self._decode([token], len(self.tokens))

    def logits(self) -> npt.NDArray[np.float32]:
        """The logits after the last decoded token."""
        pointer = llama_cpp.llama_get_logits_ith(self._ctx.ctx, -1)
        return np.ctypeslib.as_array(pointer, shape=(self._n_vocab,))

    def _forget_from(self, position: int) -> None:
        if position < len(self.tokens):
            self._ctx.kv_cache_seq_rm(0, position, -1)
            del self.tokens[position:]

    def _decode(self, chunk: Sequence[int], position: int) -> None:
        self._batch.set_batch(batch=chunk, n_past=position, logits_all=False)
        try:
            with self.gate.step("completion"):
                self._ctx.decode(self._batch)
        except Exception:
            self._forget_from(position)  # the cache may hold part of the batch: drop it all
            raise
        self.tokens.extend(chunk)

    def close(self) -> None:
        self._batch.close()  # type: ignore[no-untyped-call]
        self._ctx.close()  # type: ignore[no-untyped-call]


class SharedModel:
    """The weights of one GGUF file, its agent context and its completion context."""

    def __init__(self, loaded: LoadedModel) -> None:
        self.loaded = loaded
        self.gate = DecodeGate()
        self._completion: CompletionContext | None = None
        self._lock = threading.Lock()

    def completion_context(self, n_ctx: int) -> CompletionContext:
        """The completion context (created once; the agent's context is gated from then on)."""
        with self._lock:
            if self._completion is None:
                _gate_agent(self.loaded, self.gate)
                self._completion = CompletionContext(self.loaded, self.gate, n_ctx)
            return self._completion


def _gate_agent(loaded: LoadedModel, gate: DecodeGate) -> None:
    llama: Any = loaded.llama
    llama.n_batch = min(int(llama.n_batch), AGENT_STEP_TOKENS)
    llama._ctx.decode = gate.gated("agent", llama._ctx.decode)


def agent_context(path: Path, agent_model_id: str, agent_num_ctx: int) -> int:
    """The context length the agent would load `path` with (`MODEL_ID`, `MODEL_NUM_CTX`), so a
    completion context is made on the agent's very copy; the least when the agent uses another
    model (its context goes unused then)."""
    if not agent_model_id.startswith("embedded"):
        return MIN_AGENT_CONTEXT
    try:
        same = embedded_gguf(agent_model_id) == path
    except EmbeddedModelError:
        return MIN_AGENT_CONTEXT
    if not same:
        return MIN_AGENT_CONTEXT
    # The agent's own rule (`models.embedded.model`): MODEL_NUM_CTX within the model's most.
    return max(MIN_AGENT_CONTEXT, min(agent_num_ctx, max_context(agent_model_id)))


_SHARED: dict[tuple[Path, int], SharedModel] = {}
_SHARED_LOCK = threading.Lock()


def shared_model(path: Path, n_ctx: int) -> SharedModel:
    """The process's shared model for `path` whose agent context has `n_ctx` tokens (the same
    key as `load_llama`, so an agent job with that context length uses this copy)."""
    with _SHARED_LOCK:
        shared = _SHARED.get((path, n_ctx))
        if shared is None:
            shared = _SHARED[(path, n_ctx)] = SharedModel(load_llama(path, n_ctx))
        return shared
