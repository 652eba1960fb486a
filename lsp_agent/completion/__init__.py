"""Inline completions (ghost text) from a fill-in-the-middle model: `textDocument/inlineCompletion`.

- `config`: `CompletionConfig` (built by `Settings.completion_config()`; empty model = off);
- `context`: the text around the cursor (PREFIX / SUFFIX / MIDDLE, the sticky anchor);
- `neighbours`: a little context from other open or recently edited files;
- `fim_prompt`: the embedded model's prompt from its own special tokens;
- `postprocess`: where a completion stops and what of it is worth showing;
- `cache`: completions found again by the text around the cursor, also while typing them;
- `backends/`: embedded (in-process), llama-server `/infill`, Ollama `/api/generate`;
- `service`: one request from the cursor to the text (cancel, cache, debounce, errors).

The LSP front end (`lsp_agent.lsp.inline_completion`) is a thin handler over `service`.
"""

from lsp_agent.completion.backends import BackendUnavailable, FimResult, open_backend
from lsp_agent.completion.config import CompletionConfig, CompletionModelError
from lsp_agent.completion.neighbours import OpenDocument
from lsp_agent.completion.service import CompletionAnswer, CompletionQuery, CompletionService

__all__ = [
    "BackendUnavailable",
    "CompletionAnswer",
    "CompletionConfig",
    "CompletionModelError",
    "CompletionQuery",
    "CompletionService",
    "FimResult",
    "OpenDocument",
    "open_backend",
]
