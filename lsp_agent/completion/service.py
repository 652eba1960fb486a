"""One request for an inline completion, from the cursor to the text to show.

`CompletionService.complete(query)`:
1. context and cache key are taken from the document at once (before any `await`: the editor's
   next edit may change the document meanwhile);
2. a newer request supersedes the running one: its backend work is cancelled (the embedded
   model stops within one decode step) and it answers nothing; `$/cancelRequest` does the same
   through the request's task;
3. the result cache answers what is known at this place, or the rest of a completion the user
   is typing (`cache.CompletionCache`), without debounce;
4. automatic requests wait `debounce_ms` first (a newer one during the wait wins);
5. the backend's text goes through `postprocess.finish`; the result is cached.

A backend that is down (`BackendUnavailable`) is reported once through `notify`, then retried
quietly with a growing pause (1 s, 2 s, … 30 s) during which requests answer nothing at once;
when it answers again the next failure is reported again. Sensitive files (`.env`, keys) get
no completions.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from lsp_agent.completion.backends import (
    BackendUnavailable,
    CompletionBackend,
    FimRequest,
    FimResult,
)
from lsp_agent.completion.cache import CompletionCache, CursorText, cursor_text
from lsp_agent.completion.config import CompletionConfig
from lsp_agent.completion.context import Anchor, build_context, choose_anchor
from lsp_agent.completion.neighbours import ExtraChunk, OpenDocument, RecentFiles, is_sensitive
from lsp_agent.completion.postprocess import finish

log = logging.getLogger(__name__)

RETRY_FIRST_S = 1.0
RETRY_MAX_S = 30.0
UNFINISHED = ("cancelled", "prompt budget")


@dataclass(frozen=True)
class CompletionQuery:
    """Where a completion is asked for, and the document as it is now."""

    uri: str
    path: str
    lines: Sequence[str]
    line: int
    character: int
    automatic: bool = True
    documents: Mapping[str, OpenDocument] = field(default_factory=dict)


@dataclass(frozen=True)
class CompletionAnswer:
    """The text to show (None: nothing) and where it came from (`cache`, `model`, `superseded`,
    `unavailable`, `sensitive`), with the backend's figures when it was asked."""

    text: str | None
    source: str
    result: FimResult | None = None


@dataclass
class CompletionStats:
    """What the service has answered so far (shown by `lspAgent.status`)."""

    answers: dict[str, int] = field(default_factory=dict)
    last: dict[str, object] = field(default_factory=dict)

    def count(self, answer: CompletionAnswer) -> CompletionAnswer:
        self.answers[answer.source] = self.answers.get(answer.source, 0) + 1
        result = answer.result
        self.last = {"source": answer.source, "shown": bool(answer.text)}
        if result is not None:
            self.last.update(
                promptTokens=result.prompt_tokens,
                cachedTokens=result.cached_tokens,
                generatedTokens=result.generated_tokens,
                stopped=result.stopped,
                waitedMs=round(result.waited_ms, 1),
            )
        return answer


class CompletionService:
    """Completions for one editor session (see the module doc)."""

    def __init__(
        self,
        config: CompletionConfig,
        backend: CompletionBackend,
        *,
        repo: str = "project",
        notify: Callable[[str], None] = lambda message: None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.backend = backend
        self.repo = repo
        self.notify = notify
        self.cache = CompletionCache()
        self.recent = RecentFiles()
        self.stats = CompletionStats()
        self._clock = clock
        self._anchors: dict[str, Anchor] = {}
        self._extras: tuple[str, tuple[ExtraChunk, ...]] = ("", ())
        self._generation = 0
        self._running: asyncio.Future[FimResult] | None = None
        self._retry_at = 0.0
        self._retry_pause = RETRY_FIRST_S
        self._reported = False

    async def complete(self, query: CompletionQuery) -> CompletionAnswer:
        return self.stats.count(await self._complete(query))

    async def _complete(self, query: CompletionQuery) -> CompletionAnswer:
        if is_sensitive(query.path):
            return CompletionAnswer(None, "sensitive")
        self._generation += 1
        mine = self._generation
        if self._running is not None:
            self._running.cancel()
        where = cursor_text(query.uri, query.lines, query.line, query.character)
        known = self.cache.get(where)
        if known is not None:
            return CompletionAnswer(known or None, "cache")
        request = self.request_for(query)
        if query.automatic and self.config.debounce_ms > 0:
            await asyncio.sleep(self.config.debounce_ms / 1000)
            if mine != self._generation:
                return CompletionAnswer(None, "superseded")
        if self._clock() < self._retry_at:
            return CompletionAnswer(None, "unavailable")
        return await self._ask(request, where, mine)

    def request_for(self, query: CompletionQuery) -> FimRequest:
        """The backend request for `query` (the anchor and other files as this session keeps
        them); `bench complete` sends the same straight to the backend."""
        anchor = choose_anchor(
            self._anchors.get(query.uri), query.uri, query.lines, query.line, self.config
        )
        self._anchors[query.uri] = anchor
        context = build_context(
            query.path,
            query.lines,
            line=query.line,
            character=query.character,
            anchor=anchor,
            config=self.config,
        )
        if self._extras[0] != query.uri:
            self._extras = (query.uri, self.recent.chunks(query.uri, query.documents, self.config))
        return FimRequest(
            context=context,
            extras=self._extras[1],
            repo=self.repo,
            max_tokens=self.config.max_tokens,
            prompt_ms=self.config.prompt_ms,
            predict_ms=self.config.predict_ms,
        )

    async def _ask(self, request: FimRequest, where: CursorText, mine: int) -> CompletionAnswer:
        running = asyncio.ensure_future(self.backend.complete(request))
        self._running = running
        try:
            result = await running
        except asyncio.CancelledError:
            if mine != self._generation and not _cancelling():
                return CompletionAnswer(None, "superseded")
            raise
        except BackendUnavailable as exc:
            self._unavailable(str(exc))
            return CompletionAnswer(None, "unavailable")
        finally:
            if self._running is running:
                self._running = None
        self._available()
        if result.stopped in UNFINISHED:
            return CompletionAnswer(None, result.stopped, result)
        text = finish(result.text, request.context)
        self.cache.put(where, text or "")
        return CompletionAnswer(text, "model", result)

    def _unavailable(self, message: str) -> None:
        self._retry_at = self._clock() + self._retry_pause
        self._retry_pause = min(self._retry_pause * 2, RETRY_MAX_S)
        if self._reported:
            log.debug("completions: %s", message)
            return
        self._reported = True
        log.warning("completions: %s", message)
        self.notify(f"Inline completions: {message}. Trying again quietly.")

    def _available(self) -> None:
        if self._reported:
            log.info("completions: %s answers again", self.backend.label)
        self._reported = False
        self._retry_at = 0.0
        self._retry_pause = RETRY_FIRST_S

    def status(self) -> dict[str, object]:
        return {
            "backend": self.backend.label,
            "answers": dict(self.stats.answers),
            "last": dict(self.stats.last),
        }

    async def close(self) -> None:
        if self._running is not None:
            self._running.cancel()
        await self.backend.close()


def _cancelling() -> bool:
    """Whether the current task itself is being cancelled (not only what it awaited)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
