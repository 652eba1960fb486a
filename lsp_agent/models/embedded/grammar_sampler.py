"""Grammar-constrained sampling for llama-cpp-python that is nearly as fast as unconstrained.

llama-cpp-python puts the grammar first in its sampler chain, so every token pays a grammar
pass over the whole vocabulary (49k tokens for SmolLM2): decoding drops from ~65 to ~30
tokens/s with a trivial grammar, and to ~4 tokens/s with a `from_json_schema` grammar.
llama.cpp's own `common_sampler` does better, and `CheckFirstSampler` does the same here:
sample without the grammar, ask the grammar about that one token, and only when it is
rejected apply the grammar to the full vocabulary and sample again. Most tokens the model
wants are allowed, so most steps cost one single-token grammar check.

`CheckFirstSampler` has the two methods `Llama.sample()` uses (`sample`, `close`);
`ConstrainedLlama` returns it from `_init_sampler` when a grammar is given, so the rest of
llama-cpp-python's generation (prompt-prefix cache, stop handling, usage) stays as it is.
`grammar_accepts()` runs a text through a grammar token by token (tests).

`quiet_llama()` loads a model printing nothing: llama-cpp-python's `verbose=False` would
redirect file descriptors 1 and 2 process-wide while loading (racing the language server's
JSON-RPC output on stdout), so it loads `verbose=True` with only Python's `sys.stderr`
swapped (llama.cpp's log goes through a Python callback that prints there), then sets the
library quiet.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import llama_cpp
import numpy as np
from llama_cpp import Llama
from llama_cpp import _internals as internals
from llama_cpp._logger import set_verbose
from llama_cpp.llama_grammar import LlamaGrammar

__all__ = [
    "CheckFirstSampler",
    "ConstrainedLlama",
    "GrammarError",
    "Sampler",
    "SamplingParams",
    "grammar_accepts",
    "quiet_llama",
]

_TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)], align=True)


class GrammarError(ValueError):
    """llama.cpp could not parse a grammar (a bug in the grammar builder)."""


def _grammar_sampler(vocab: Any, grammar: str, root: str = "root") -> Any:
    sampler = llama_cpp.llama_sampler_init_grammar(
        vocab, grammar.encode("utf-8"), root.encode("utf-8")
    )
    if not sampler:
        raise GrammarError("llama.cpp rejected the grammar (its parse error went to stderr)")
    return sampler


@dataclass(frozen=True)
class SamplingParams:
    """How tokens are sampled: llama.cpp's usual chain, greedy at temperature 0."""

    temperature: float
    top_k: int = 40
    top_p: float = 0.95
    min_p: float = 0.05
    seed: int = 0


class Sampler:
    """llama.cpp's sampler chain at `temperature` (greedy at 0); no grammar."""

    def __init__(
        self, model: internals.LlamaModel, grammar: str | None, params: SamplingParams
    ) -> None:
        self.chain = internals.LlamaSampler()  # type: ignore[no-untyped-call]
        if params.temperature <= 0.0:
            self.chain.add_greedy()  # type: ignore[no-untyped-call]
        else:
            self.chain.add_top_k(params.top_k)
            self.chain.add_top_p(params.top_p, 1)
            self.chain.add_min_p(params.min_p, 1)
            self.chain.add_temp(params.temperature)
            self.chain.add_dist(params.seed)

    def sample(self, ctx: internals.LlamaContext, idx: int) -> int:
        return int(llama_cpp.llama_sampler_sample(self.chain.sampler, ctx.ctx, idx))

    def accept_forced(self, token: int) -> None:
        """A token written without sampling: the chain's state takes it too."""
        llama_cpp.llama_sampler_accept(self.chain.sampler, token)

    def close(self) -> None:
        if hasattr(self, "chain"):
            self.chain.close()  # type: ignore[no-untyped-call]

    def __del__(self) -> None:
        self.close()


class CheckFirstSampler(Sampler):
    """Sample unconstrained, check the token against the grammar, fall back to full masking."""

    def __init__(
        self, model: internals.LlamaModel, grammar: str | None, params: SamplingParams
    ) -> None:
        self.grammar: Any = None
        if grammar is None:
            raise GrammarError("CheckFirstSampler needs a grammar")
        self.n_vocab = int(model.n_vocab())
        self.grammar = _grammar_sampler(model.vocab, grammar)
        super().__init__(model, None, params)
        self._one = llama_cpp.llama_token_data()
        self._one_array = llama_cpp.llama_token_data_array(
            data=ctypes.pointer(self._one), size=1, selected=-1, sorted=False
        )
        self._full = np.zeros(self.n_vocab, dtype=_TOKEN_DATA)
        self._full["id"] = np.arange(self.n_vocab, dtype=np.int32)
        self.checks = 0
        self.fallbacks = 0

    def allows(self, token: int) -> bool:
        """Whether the grammar, in its current state, admits `token` next."""
        self._one.id = token  # type: ignore[assignment]
        self._one.logit = 0.0
        self._one.p = 0.0
        self._one_array.size = 1
        self._one_array.selected = -1
        llama_cpp.llama_sampler_apply(self.grammar, ctypes.byref(self._one_array))
        return not math.isinf(self._one.logit)

    def accept(self, token: int) -> None:
        """The grammar takes `token`."""
        llama_cpp.llama_sampler_accept(self.grammar, token)

    def accept_forced(self, token: int) -> None:
        super().accept_forced(token)
        self.accept(token)

    def sample(self, ctx: internals.LlamaContext, idx: int) -> int:
        token = super().sample(ctx, idx)
        self.checks += 1
        if not self.allows(token):
            self.fallbacks += 1
            token = self._sample_masked(ctx, idx)
        self.accept(token)
        return token

    def _sample_masked(self, ctx: internals.LlamaContext, idx: int) -> int:
        logits = llama_cpp.llama_get_logits_ith(ctx.ctx, idx)
        self._full["logit"] = np.ctypeslib.as_array(logits, shape=(self.n_vocab,))
        self._full["p"] = 0.0
        array = llama_cpp.llama_token_data_array(
            data=self._full.ctypes.data_as(llama_cpp.llama_token_data_p),
            size=self.n_vocab,
            selected=-1,
            sorted=False,
        )
        llama_cpp.llama_sampler_apply(self.grammar, ctypes.byref(array))
        llama_cpp.llama_sampler_apply(self.chain.sampler, ctypes.byref(array))
        return int(array.data[array.selected].id)

    def close(self) -> None:
        if getattr(self, "grammar", None):
            llama_cpp.llama_sampler_free(self.grammar)
            self.grammar = None
        super().close()


class ConstrainedLlama(Llama):
    """`Llama` whose grammar sampling checks the sampled token first (see the module doc).

    `check_first = False` restores llama-cpp-python's own grammar-first chain (benchmarks).
    """

    check_first = True

    def _init_sampler(self, *args: Any, **kwargs: Any) -> Any:
        grammar: LlamaGrammar | None = kwargs.get("grammar")
        if grammar is None or not self.check_first:
            return super()._init_sampler(*args, **kwargs)
        params = SamplingParams(
            temperature=float(kwargs.get("temp", 0.8)),
            top_k=int(kwargs.get("top_k", 40)),
            top_p=float(kwargs.get("top_p", 0.95)),
            min_p=float(kwargs.get("min_p", 0.05)),
            seed=int(self._seed),
        )
        return CheckFirstSampler(self._model, grammar._grammar, params)


def grammar_accepts(model: Llama, grammar: str, text: str) -> bool:
    """Whether `grammar` admits exactly `text` (fed as the model's tokens, then end of text)."""
    sampler = CheckFirstSampler(model._model, grammar, SamplingParams(temperature=0.0))
    try:
        for token in model.tokenize(text.encode("utf-8"), add_bos=False, special=False):
            if not sampler.allows(token):
                return False
            sampler.accept(token)
        return sampler.allows(model.token_eos())
    finally:
        sampler.close()


def quiet_llama(path: Path, **kwargs: Any) -> ConstrainedLlama:
    """`ConstrainedLlama(model_path=path, **kwargs)`, loaded without printing anything."""
    with contextlib.redirect_stderr(io.StringIO()):
        llama = ConstrainedLlama(model_path=str(path), verbose=True, **kwargs)
    set_verbose(False)
    llama.verbose = False
    return llama
