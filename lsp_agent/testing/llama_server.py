"""llama.cpp's own OpenAI-compatible server, `llama-server --jinja`, on 127.0.0.1.

The server Ollama and LM Studio users effectively run. `LlamaServer(gguf, alias)` starts the
provisioned binary (`llama_server_build.ensure_llama_server()`, or `binary=`) with `--jinja`
(the model's own chat template renders tools and tool calls), one slot, the prompt cache on,
and its log in a file: point the agent at it with `MODEL_ID=openai/<alias>
MODEL_API_BASE=<openai_base>`. Threads: the cores free when it starts
(`models.embedded.threads`: on a busy machine two threads are several times slower than one).
"""

from __future__ import annotations

from pathlib import Path

from lsp_agent.models.embedded.threads import free_threads
from lsp_agent.testing.llama_server_build import (
    LlamaServerBuildError,
    cached_llama_server,
    server_environment,
)
from lsp_agent.testing.server_process import ModelServerError, ModelServerProcess

__all__ = ["LlamaServer"]

CONTEXT_TOKENS = 8192


class LlamaServer(ModelServerProcess):
    """Context manager: `llama-server --jinja` serving `gguf` as `alias`."""

    label = "llama-server"

    def __init__(
        self,
        gguf: Path,
        alias: str,
        *,
        binary: Path | None = None,
        log_path: Path | None = None,
        context_tokens: int = CONTEXT_TOKENS,
        reply_tokens: int | None = None,
    ) -> None:
        """`reply_tokens` caps a reply whose request sets no `max_tokens` (the server's
        default is none: a small model that repeats itself writes until the context is full)."""
        super().__init__(log_path=log_path)
        self.gguf = gguf
        self.alias = alias
        self.binary = binary
        self.context_tokens = context_tokens
        self.reply_tokens = reply_tokens

    def _binary(self) -> Path:
        binary = self.binary or cached_llama_server()
        if binary is None:
            raise ModelServerError(
                "llama-server is not provisioned: run `python -m "
                "lsp_agent.testing.llama_server_build` (builds it once, ~7 min on 2 cores)"
            )
        return binary

    def check_ready(self) -> None:
        self._binary()
        if not self.gguf.is_file():
            raise ModelServerError(f"no model file at {self.gguf}")

    def environment(self) -> dict[str, str]:
        return server_environment(self._binary())

    def command(self) -> list[str]:
        threads = free_threads()  # a server cannot change them later: the load at its start
        return [
            str(self._binary()),
            "--model",
            str(self.gguf),
            "--alias",
            self.alias,
            "--jinja",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--ctx-size",
            str(self.context_tokens),
            "--parallel",
            "1",
            "--threads",
            str(threads),
            "--threads-batch",
            str(threads),
            "--no-webui",
            *(("--n-predict", str(self.reply_tokens)) if self.reply_tokens else ()),
        ]


def provisioned() -> Path | None:
    """The provisioned llama-server, or None (never builds)."""
    try:
        return cached_llama_server()
    except LlamaServerBuildError:
        return None
