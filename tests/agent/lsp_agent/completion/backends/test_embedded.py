"""Inline completions on the embedded model for real (SmolLM2-135M in this process): one loaded
copy for the agent and completions, a keystroke reads only its new tokens, cancel stops the
decode loop, and a completion waits at most for the agent step already running."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from lsp_agent.completion.backends.base import FimRequest
from lsp_agent.completion.backends.embedded import EmbeddedBackend, _complete
from lsp_agent.completion.config import CompletionConfig
from lsp_agent.completion.context import build_context, choose_anchor
from lsp_agent.models.embedded.loader import embedded_gguf
from lsp_agent.models.embedded.sharing import (
    AGENT_STEP_TOKENS,
    CompletionContext,
    agent_context,
    shared_model,
)

# A context length no other test uses: this test's model copy is its own (the gate it installs
# on the agent's context does not reach the other tests' copy).
AGENT_CTX = 1536
CONFIG = CompletionConfig(
    model_id="embedded", agent_model_id="embedded", agent_num_ctx=AGENT_CTX, debounce_ms=0
)
SOURCE = ["def add(a, b):", "    return a + b", "", "def mul(a, b):", "    return "]


def request(lines: list[str], line: int, character: int, **extra: Any) -> FimRequest:
    anchor = choose_anchor(None, "u", lines, line, CONFIG)
    ctx = build_context(
        "ops.py", lines, line=line, character=character, anchor=anchor, config=CONFIG
    )
    return FimRequest(context=ctx, max_tokens=extra.pop("max_tokens", 16), **extra)


@pytest.fixture(scope="module")
def context() -> CompletionContext:
    shared = shared_model(embedded_gguf("embedded"), AGENT_CTX)
    return shared.completion_context(CONFIG.context_tokens)


def test_one_loaded_copy_serves_the_agent_and_completions(context: CompletionContext) -> None:
    path = embedded_gguf("embedded")
    assert agent_context(path, "embedded", AGENT_CTX) == AGENT_CTX  # the agent's own key
    assert agent_context(path, "ollama_chat/qwen2.5-coder:14b", AGENT_CTX) == 512
    shared = shared_model(embedded_gguf("embedded"), AGENT_CTX)
    assert context.loaded is shared.loaded
    assert context._ctx.model is shared.loaded.llama._model  # the same llama_model: no second load
    assert shared.loaded.llama.n_batch <= AGENT_STEP_TOKENS  # short agent steps from now on


def test_a_keystroke_reads_only_its_new_tokens(context: CompletionContext) -> None:
    stop = threading.Event()
    first = _complete(context, request(SOURCE, 4, 11), stop)
    typed = [*SOURCE[:4], "    return a"]
    second = _complete(context, request(typed, 4, 12), stop)
    assert first.prompt_tokens > 10
    assert second.cached_tokens >= first.prompt_tokens + first.cached_tokens - 2
    assert second.prompt_tokens <= 3, second


def test_cancel_stops_the_decode_loop_within_one_step(context: CompletionContext) -> None:
    stop = threading.Event()
    steps = 0
    decode = context._ctx.decode

    def counting(batch: Any) -> Any:
        nonlocal steps
        steps += 1
        if steps == 2:
            stop.set()  # the user typed: the next step must not start
        return decode(batch)

    context._ctx.decode = counting  # type: ignore[method-assign]
    try:
        lines = [f"value_{i} = {i} * {i}" for i in range(60)] + [""]
        result = _complete(context, request(lines, 60, 0), stop)
    finally:
        context._ctx.decode = decode  # type: ignore[method-assign]
    assert result.stopped == "cancelled" and result.text == ""
    assert steps == 2


def test_a_completion_waits_at_most_for_the_running_agent_step(context: CompletionContext) -> None:
    shared = shared_model(embedded_gguf("embedded"), AGENT_CTX)
    history: list[tuple[str, str]] = []
    shared.gate.history = history  # type: ignore[assignment]
    llama = shared.loaded.llama
    busy = threading.Event()

    def agent_job() -> None:
        with shared.loaded.lock:
            busy.set()
            prompt = "Here is a long story about numbers: " + " ".join(str(i) for i in range(120))
            llama.create_completion(prompt=prompt, max_tokens=8, temperature=0.0)

    agent = threading.Thread(target=agent_job, daemon=True)
    agent.start()
    try:
        assert busy.wait(30)
        while not any(lane == "agent" for lane, _ in history):
            time.sleep(0.001)  # the agent's prompt is being decoded, step by step
        asked = len(history)
        result = asyncio.run(EmbeddedBackend(CONFIG).complete(request(SOURCE, 4, 11)))
        starts = [lane for lane, event in history[asked:] if event == "start"]
        assert starts and starts.index("completion") <= 1, starts
        assert result.stopped != "cancelled"
    finally:
        agent.join(120)
        shared.gate.history = None
    agent_steps = [lane for lane, event in history if lane == "agent" and event == "start"]
    assert len(agent_steps) > 3, "the agent's prompt is decoded in short steps"
