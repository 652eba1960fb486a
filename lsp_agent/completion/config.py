"""The inline-completion component's own configuration, built by `Settings.completion_config()`.

`COMPLETION_MODEL_ID` picks the backend (empty = completions off):
- `embedded`, `embedded:NAME|PATH`: the embedded model in-process (one loaded copy shared with
  the agent when both name the same file);
- `openai/<name>`: llama.cpp's `llama-server` at `COMPLETION_API_BASE` (its `/infill`);
- `ollama/<name>` (or `ollama_chat/<name>`): Ollama's `/api/generate` with `suffix`.

The context windows (lines and characters around the cursor, other files) are fixed here with
defaults sized for a 1.5B model on a CPU: a cold prompt of about 700 tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

BackendKind = Literal["embedded", "llama-server", "ollama"]

LLAMA_SERVER_DEFAULT_BASE = "http://127.0.0.1:8080"
OLLAMA_DEFAULT_BASE = "http://localhost:11434"
OLLAMA_PREFIXES = ("ollama/", "ollama_chat/")
MODEL_ID_FORMS = "empty (off), `embedded[:NAME|:PATH]`, `openai/<name>` or `ollama/<name>`"


class CompletionModelError(ValueError):
    """`COMPLETION_MODEL_ID` names no backend this server has."""


def backend_kind(model_id: str) -> BackendKind:
    """Which backend serves `model_id` (raises `CompletionModelError` for other forms)."""
    text = model_id.strip()
    if text == "embedded" or text.startswith("embedded:"):
        return "embedded"
    if text.startswith("openai/") and len(text) > len("openai/"):
        return "llama-server"
    if text.startswith(OLLAMA_PREFIXES) and text.split("/", 1)[1]:
        return "ollama"
    raise CompletionModelError(
        f"COMPLETION_MODEL_ID={model_id!r} is not a completion model: expected {MODEL_ID_FORMS}"
    )


@dataclass(frozen=True)
class CompletionConfig:
    """Everything the completion component reads; `model_id=""` means completions are off."""

    model_id: str = ""
    api_base: str = ""
    max_tokens: int = 128
    prompt_ms: int = 0
    predict_ms: int = 500
    debounce_ms: int = 100
    # The context around the cursor, bounded in lines and characters.
    prefix_lines: int = 32
    prefix_chars: int = 2000
    suffix_lines: int = 8
    suffix_chars: int = 600
    # Lines from the anchor to the cursor kept after `<|fim_middle|>` (so Enter adds tokens at
    # the end of the prompt instead of changing its middle); see `context.choose_anchor`.
    middle_lines: int = 8
    # Other open or recently edited files: how many, and how many characters of each.
    extra_files: int = 2
    extra_chars: int = 600
    # The embedded model: tokens of its completion context, and the agent's model and context
    # length (`MODEL_ID`, `MODEL_NUM_CTX`), so both share one loaded copy of the weights.
    context_tokens: int = 2048
    agent_model_id: str = ""
    agent_num_ctx: int = 8192

    @property
    def enabled(self) -> bool:
        return bool(self.model_id.strip())

    @property
    def kind(self) -> BackendKind:
        return backend_kind(self.model_id)

    @property
    def server_model(self) -> str:
        """The model name a server is asked for (`openai/NAME` -> `NAME`)."""
        return self.model_id.split("/", 1)[1] if "/" in self.model_id else self.model_id

    def base_url(self) -> str:
        """The server's root URL (a trailing `/v1` is dropped: `/infill` lives at the root)."""
        base = self.api_base.rstrip("/")
        if not base:
            return OLLAMA_DEFAULT_BASE if self.kind == "ollama" else LLAMA_SERVER_DEFAULT_BASE
        return base.removesuffix("/v1")
