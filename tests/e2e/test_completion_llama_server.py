"""Inline completions against llama.cpp's own `llama-server` and its `/infill` (not a stub).

SmolLM2-135M has no fill-in-the-middle tokens, so the server is started with three of its
tokens named as FIM tokens (`--override-kv tokenizer.ggml.fim_*_token_id`): the completions
are nonsense, the plumbing is real — the request fields, the server's prompt cache between
keystrokes, the language server over stdio, and the server's own refusal of a model without
FIM tokens, which the user gets as one clear message.

The binary: `LSP_AGENT_LLAMA_SERVER`, else the build that `lsp_agent.testing.llama_server_build`
provisions (issue 30), else `llama-server` on PATH (missing: fails under CI=true, skips
elsewhere).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from lsp_agent.completion import BackendUnavailable
from lsp_agent.completion.backends.base import FimRequest
from lsp_agent.completion.backends.llama_server import LlamaServerBackend
from lsp_agent.completion.config import CompletionConfig
from lsp_agent.completion.context import build_context, choose_anchor
from lsp_agent.models.embedded.loader import embedded_gguf
from tests.conftest import free_port, require_component, wait_for_http

FIM_OVERRIDES = (
    "tokenizer.ggml.fim_pre_token_id=int:11,"
    "tokenizer.ggml.fim_suf_token_id=int:12,"
    "tokenizer.ggml.fim_mid_token_id=int:13"
)
SOURCE = ["def add(a, b):", "    return a + b", "", "def mul(a, b):", "    return "]


def llama_server_binary() -> str | None:
    given = os.environ.get("LSP_AGENT_LLAMA_SERVER")
    if given:
        return given
    try:
        from lsp_agent.testing.llama_server_build import provisioned
    except ImportError:  # the provisioning step is not in this checkout
        return shutil.which("llama-server")
    built = provisioned()
    return str(built) if built is not None else shutil.which("llama-server")


def server_environment(binary: str) -> dict[str, str]:
    """The provisioned build's own environment (its libraries), else ours."""
    try:
        from lsp_agent.testing.llama_server_build import server_environment as build_env
    except ImportError:
        return dict(os.environ)
    return {**os.environ, **build_env(Path(binary))}


def start(log: Path, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    binary = llama_server_binary()
    require_component("llama.cpp's llama-server", binary is not None, "set LSP_AGENT_LLAMA_SERVER")
    assert binary is not None
    port = free_port()
    argv = [binary, "-m", str(embedded_gguf("embedded")), "--host", "127.0.0.1"]
    argv += ["--port", str(port), "-c", "2048", "-t", "2", "--cache-reuse", "256", *extra]
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            argv, stdout=out, stderr=subprocess.STDOUT, env=server_environment(binary)
        )
    url = f"http://127.0.0.1:{port}"
    if not wait_for_http(url + "/health", proc, 120):
        proc.kill()
        raise AssertionError(f"llama-server did not come up:\n{log.read_text()[-2000:]}")
    return proc, url


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    proc, url = start(
        tmp_path_factory.mktemp("llama-server") / "log", "--override-kv", FIM_OVERRIDES
    )
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(30)


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
    proc, url = start(tmp_path / "log")
    try:
        backend, fim = request(url, SOURCE, 11)

        async def run() -> None:
            try:
                await backend.complete(fim)
            finally:
                await backend.close()

        with pytest.raises(BackendUnavailable) as refused:
            asyncio.run(run())
    finally:
        proc.terminate()
        proc.wait(30)
    assert "Infill is not supported by this model" in str(refused.value)
