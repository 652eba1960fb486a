"""Where completions come from: one module per backend behind one Protocol, one factory.

- `embedded`: the embedded model in-process (`backends.embedded`);
- `llama-server`: llama.cpp's server, `/infill` (`backends.llama_server`);
- `ollama`: Ollama's `/api/generate` with `suffix` (`backends.ollama`).

A backend answers one `FimRequest` at a time with the model's raw text (cut by
`postprocess.stop_index` where it streams); cancelling the awaiting task stops its work.
`BackendUnavailable` says, in words a user can act on, why no completion could be had (server
down, model unknown, a model without fill-in-the-middle); the service shows it once.
"""

from __future__ import annotations

from lsp_agent.completion.backends.base import (
    BackendUnavailable,
    CompletionBackend,
    FimRequest,
    FimResult,
)
from lsp_agent.completion.config import CompletionConfig

__all__ = [
    "BackendUnavailable",
    "CompletionBackend",
    "FimRequest",
    "FimResult",
    "open_backend",
]


def open_backend(config: CompletionConfig) -> CompletionBackend:
    """The backend `config.model_id` names (raises `CompletionModelError` for other forms)."""
    kind = config.kind
    if kind == "embedded":
        from lsp_agent.completion.backends.embedded import EmbeddedBackend

        return EmbeddedBackend(config)
    if kind == "ollama":
        from lsp_agent.completion.backends.ollama import OllamaBackend

        return OllamaBackend(config)
    from lsp_agent.completion.backends.llama_server import LlamaServerBackend

    return LlamaServerBackend(config)
