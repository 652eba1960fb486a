"""`ModelConfig`: the MODEL_* settings, by their own names, and nothing else.

The model boundary reads only this (`lsp_agent.settings.Settings.model_config()` builds it),
never the settings object or the environment.
"""

from __future__ import annotations

from dataclasses import dataclass

OLLAMA_PREFIXES = ("ollama/", "ollama_chat/")
OLLAMA_DEFAULT_BASE = "http://localhost:11434"


@dataclass(frozen=True)
class ModelConfig:
    """Which model, where, and how it is asked (see `Settings` for each key's meaning)."""

    model_id: str
    model_api_base: str
    model_temperature: float
    model_max_tokens: int
    model_num_ctx: int
    model_fallbacks: tuple[str, ...]
    model_constrained_calls: bool

    def effective_api_base(self) -> str:
        """The URL the model is reached at, filling in the provider's default."""
        if self.model_api_base:
            return self.model_api_base
        if self.model_id.startswith(OLLAMA_PREFIXES):
            return OLLAMA_DEFAULT_BASE
        return ""
