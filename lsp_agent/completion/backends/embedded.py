"""The embedded model in-process: a completion context on the agent's loaded copy.

The model (`embedded:NAME|PATH`, as for `MODEL_ID`) is shared with the agent through
`models.embedded.sharing`: one copy of the weights, a context each, and a decode gate that lets
a completion step go before the agent's next step. Work runs in one worker thread; cancelling
the request sets a flag the decode loop reads before every step, so a superseded request stops
within one decode step, keeping the prompt it has read in the KV cache for the next one.

The loop decodes the prompt (only what the cache lacks), then writes greedily (same place, same
answer: the result cache can trust it) until an end-of-generation token, a stop rule of
`postprocess.stop_index`, `max_tokens`, or a line break after `predict_ms` (llama-server's
`t_max_predict_ms`). With `prompt_ms`, reading a long prompt stops after that long and answers
nothing; the part read stays cached.
"""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np

from lsp_agent.completion.backends.base import BackendUnavailable, FimRequest, FimResult
from lsp_agent.completion.config import CompletionConfig
from lsp_agent.completion.fim_prompt import fim_tokens
from lsp_agent.completion.postprocess import stop_index
from lsp_agent.models.embedded.loader import EmbeddedModelError, embedded_gguf
from lsp_agent.models.embedded.sharing import CompletionContext, agent_context, shared_model


class EmbeddedBackend:
    """`COMPLETION_MODEL_ID=embedded[:NAME|:PATH]` (see the module doc)."""

    def __init__(self, config: CompletionConfig) -> None:
        self.config = config
        self.label = f"the embedded model ({config.model_id})"
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="lsp-agent-completion")
        self._context: CompletionContext | None = None
        self.prefix_only = False

    async def warm_up(self) -> None:
        await asyncio.get_running_loop().run_in_executor(self._executor, self._ready)

    async def complete(self, request: FimRequest) -> FimResult:
        stop = threading.Event()
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, self._run, request, stop)
        except asyncio.CancelledError:
            stop.set()
            raise

    async def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    def _ready(self) -> CompletionContext:
        if self._context is None:
            try:
                path = embedded_gguf(self.config.model_id)
            except EmbeddedModelError as exc:
                raise BackendUnavailable(
                    str(exc).replace("MODEL_ID", "COMPLETION_MODEL_ID")
                ) from exc
            config = self.config
            n_ctx = agent_context(path, config.agent_model_id, config.agent_num_ctx)
            shared = shared_model(path, n_ctx)
            self._context = shared.completion_context(self.config.context_tokens)
            self.prefix_only = not self._context.vocabulary().has_fim
        return self._context

    def _run(self, request: FimRequest, stop: threading.Event) -> FimResult:
        context = self._ready()
        with context.lock:
            waited = context.gate.waited_s["completion"]
            try:
                result = _complete(context, request, stop)
            finally:
                context.gate.request_done()
            waited_ms = (context.gate.waited_s["completion"] - waited) * 1000
            return replace(result, waited_ms=waited_ms)


def _complete(context: CompletionContext, request: FimRequest, stop: threading.Event) -> FimResult:
    budget = context.n_ctx - request.max_tokens - 1
    tokens = fim_tokens(request, context.vocabulary(), context.tokenize, budget)
    started = time.monotonic()
    deadline = started + request.prompt_ms / 1000 if request.prompt_ms > 0 else None

    def should_stop() -> bool:
        return stop.is_set() or (deadline is not None and time.monotonic() > deadline)

    prepared = context.prepare(tokens, should_stop)
    prompt_ms = (time.monotonic() - started) * 1000
    if not prepared.complete:
        reason = "cancelled" if stop.is_set() else "prompt budget"
        return FimResult("", prepared.decoded, prepared.reused, 0, reason, prompt_ms)
    text, generated, stopped = _generate(context, request, stop)
    predict_ms = (time.monotonic() - started) * 1000 - prompt_ms
    return FimResult(
        text, prepared.decoded, prepared.reused, generated, stopped, prompt_ms, predict_ms
    )


def _generate(
    context: CompletionContext, request: FimRequest, stop: threading.Event
) -> tuple[str, int, str]:
    """Greedy decoding with the stop rules; returns (text, tokens written, why it stopped)."""
    written = bytearray()
    started = time.monotonic()
    for count in range(request.max_tokens):
        if stop.is_set():
            return "", count, "cancelled"
        token = int(np.argmax(context.logits()))
        if context.is_end(token):
            return written.decode("utf-8", errors="ignore"), count, "end"
        piece = context.piece(token)
        written += piece
        text = written.decode("utf-8", errors="ignore")
        cut = stop_index(text, request.context)
        if cut is not None:
            return text[:cut], count + 1, "stop rule"
        late = request.predict_ms > 0 and (time.monotonic() - started) * 1000 > request.predict_ms
        if late and b"\n" in piece:
            return text[: text.rfind("\n")], count + 1, "time"
        if count + 1 < request.max_tokens:
            context.append(token)
    return written.decode("utf-8", errors="ignore"), request.max_tokens, "max tokens"
