"""What every completion backend is: the request it answers, the result, the one error, the
Protocol (see the package doc for the backends)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from lsp_agent.completion.context import FimContext
from lsp_agent.completion.neighbours import ExtraChunk


class BackendUnavailable(Exception):
    """The backend cannot complete now; the message says why and what to do."""


@dataclass(frozen=True)
class FimRequest:
    """One completion to compute."""

    context: FimContext
    extras: tuple[ExtraChunk, ...] = ()
    repo: str = "project"
    max_tokens: int = 128
    prompt_ms: int = 0
    predict_ms: int = 500


@dataclass(frozen=True)
class FimResult:
    """The model's text and what it cost (tokens read now, reused from the cache, written;
    `waited_ms`: how long its decode steps waited for another user of the same model, the
    embedded model's agent)."""

    text: str
    prompt_tokens: int = 0
    cached_tokens: int = 0
    generated_tokens: int = 0
    stopped: str = "end"
    prompt_ms: float = 0.0
    predict_ms: float = 0.0
    waited_ms: float = 0.0


class CompletionBackend(Protocol):
    """A model that fills in the middle."""

    label: str

    async def complete(self, request: FimRequest) -> FimResult: ...

    async def warm_up(self) -> None:
        """Load what the first request would (the embedded model); nothing for servers."""

    async def close(self) -> None: ...
