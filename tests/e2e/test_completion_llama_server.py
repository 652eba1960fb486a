"""Inline completions against llama.cpp's own `llama-server` and its `/infill` (not a stub).

SmolLM2-135M has no fill-in-the-middle tokens, so the server is started with three of its
tokens named as FIM tokens (`--override-kv tokenizer.ggml.fim_*_token_id`): the completions
are nonsense, the plumbing is real — the request fields, the server's prompt cache between
keystrokes, the language server over stdio, and the server's own refusal of a model without
FIM tokens, which the user gets as one clear message.

The binary is the one `python -m lsp_agent.testing.llama_server_build` provisions (issue 30;
`tests/check.sh` runs it), started by `lsp_agent.testing.llama_server.LlamaServer`; missing, the
tests fail under CI=true and skip elsewhere.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from lsp_agent.completion import BackendUnavailable
from lsp_agent.completion.backends.base import FimRequest
from lsp_agent.completion.backends.llama_server import LlamaServerBackend
from lsp_agent.completion.config import CompletionConfig
from lsp_agent.completion.context import build_context, choose_anchor
from lsp_agent.models.embedded.loader import embedded_gguf
from lsp_agent.testing.llama_server import LlamaServer, provisioned
from lsp_agent.testing.server_process import ModelServerError
from tests.conftest import require_component

FIM_OVERRIDES = (
    "tokenizer.ggml.fim_pre_token_id=int:11,"
    "tokenizer.ggml.fim_suf_token_id=int:12,"
    "tokenizer.ggml.fim_mid_token_id=int:13"
)
SOURCE = ["def add(a, b):", "    return a + b", "", "def mul(a, b):", "    return "]


class InfillServer(LlamaServer):
    """The provisioned llama-server with SmolLM2, its prompt cache reused in chunks, and
    `extra` arguments."""

    def __init__(self, log: Path, *extra: str) -> None:
        super().__init__(embedded_gguf("embedded"), "smollm2", log_path=log, context_tokens=2048)
        self.extra = extra

    def command(self) -> list[str]:
        return [*super().command(), "--cache-reuse", "256", *self.extra]


def start(log: Path, *extra: str) -> InfillServer:
    binary = provisioned()
    require_component(
        "llama.cpp's llama-server",
        binary is not None,
        "run `python -m lsp_agent.testing.llama_server_build` (tests/check.sh does)",
    )
    server = InfillServer(log, *extra)
    try:
        return server.start(timeout_s=120)
    except ModelServerError as exc:
        raise AssertionError(f"llama-server did not come up: {exc}") from exc


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("llama-server") / "log"
    running = start(log, "--override-kv", FIM_OVERRIDES)
    try:
        yield running.base_url
    finally:
        running.stop()


def request(url: str, lines: list[str], character: int) -> tuple[LlamaServerBackend, FimRequest]:
    config = CompletionConfig(model_id="openai/smollm2", api_base=url + "/v1")
    anchor = choose_anchor(None, "u", lines, 4, config)
    ctx = build_context("ops.py", lines, line=4, character=character, anchor=anchor, config=config)
    return LlamaServerBackend(config), FimRequest(context=ctx, max_tokens=12)


def test_infill_answers_and_the_next_keystroke_reuses_the_prompt_cache(server: str) -> None:
    async def run() -> tuple[int, int, int, str]:
        backend, first = request(server, SOURCE, 11)
        typed = [*SOURCE[:4], "    return a"]
        _, second = request(server, typed, 12)
        try:
            one = await backend.complete(first)
            two = await backend.complete(second)
        finally:
            await backend.close()
        return one.prompt_tokens, two.prompt_tokens, two.cached_tokens, one.text

    cold, warm, cached, text = asyncio.run(run())
    assert isinstance(text, str)
    assert cold > 10 and warm <= 6 and cached >= cold - 2, (cold, warm, cached)


def test_a_model_without_fim_tokens_is_refused_with_the_servers_reason(tmp_path: Path) -> None:
    running = start(tmp_path / "log")
    backend, fim = request(running.base_url, SOURCE, 11)

    async def run() -> None:
        try:
            await backend.complete(fim)
        finally:
            await backend.close()

    try:
        with pytest.raises(BackendUnavailable) as refused:
            asyncio.run(run())
    finally:
        running.stop()
    assert "Infill is not supported by this model" in str(refused.value)
