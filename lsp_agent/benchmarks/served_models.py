"""Model servers a benchmark starts itself on 127.0.0.1, and the model ids they serve.

- `--serve-llama-cpp`: llama-cpp-python's `llama_cpp.server` with SmolLM2-135M, as
  `openai/smollm2`;
- `--serve-llama-server [NAME]`: llama.cpp's own `llama-server --jinja` (provisioned once,
  `lsp_agent.testing.llama_server_build`) with the embedded model NAME's GGUF file (default
  `qwen2.5-coder-1.5b`, from the `qwen` extra), as `openai/NAME`.

`start_servers` enters each into an `ExitStack` and returns `{model id: Served}`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

from lsp_agent.benchmarks.runner import BenchError, BenchOptions

__all__ = ["LLAMA_CPP_MODEL", "Served", "start_servers"]

LLAMA_CPP_MODEL = "openai/smollm2"
DEFAULT_LLAMA_SERVER_MODEL = "qwen2.5-coder-1.5b"


@dataclass(frozen=True)
class Served:
    api_base: str
    flag: tuple[str, ...]  # how the command line asks for it again


def _say(message: str) -> None:
    print(f"[models] {message}", file=sys.stderr, flush=True)


def start_servers(stack: ExitStack, options: BenchOptions) -> dict[str, Served]:
    from lsp_agent.testing.server_process import ModelServerError

    served: dict[str, Served] = {}
    try:
        if options.serve_llama_cpp:
            from lsp_agent.testing.llama_cpp_server import LlamaCppPythonServer

            _say("starting llama-cpp-python's server with SmolLM2 …")
            server = stack.enter_context(LlamaCppPythonServer())
            served[LLAMA_CPP_MODEL] = Served(server.openai_base, ("--serve-llama-cpp",))
        if options.serve_llama_server:
            name = options.serve_llama_server
            base = stack.enter_context(_llama_server(name))
            served[f"openai/{name}"] = Served(base, ("--serve-llama-server", name))
    except ModelServerError as exc:
        raise BenchError(str(exc)) from None
    for model_id, server_info in served.items():
        _say(f"{model_id} at {server_info.api_base}")
    return served


@contextmanager
def _llama_server(name: str) -> Iterator[str]:
    """llama-server with the embedded model `name`; yields its OpenAI base URL."""
    from lsp_agent.models.embedded.loader import embedded_gguf
    from lsp_agent.models.errors import ModelConfigError
    from lsp_agent.testing.llama_server import LlamaServer
    from lsp_agent.testing.llama_server_build import LlamaServerBuildError, ensure_llama_server

    try:
        gguf = embedded_gguf(f"embedded:{name}")
        binary = ensure_llama_server()
    except (ModelConfigError, LlamaServerBuildError) as exc:
        raise BenchError(f"--serve-llama-server {name}: {exc}") from None
    _say(f"starting llama-server --jinja with {gguf.name} …")
    with LlamaServer(gguf, name, binary=binary) as server:
        yield server.openai_base
