"""Ollama: `POST /api/generate` with `suffix` (`COMPLETION_MODEL_ID=ollama/<name>`).

Ollama fills in the middle through the model's template (`qwen2.5-coder` has one): `prompt` is
the text before the cursor (PREFIX and MIDDLE), `suffix` the text after it. The answer is
streamed, so the stop rules (`postprocess.stop_index`) and the prediction budget end it early
(closing the stream stops Ollama's generation). Ollama's template takes no other files, so the
repo-level context is not sent; Ollama's own prompt cache reuses the longest unchanged start.

Errors become `BackendUnavailable`: Ollama not running, the model not pulled (`ollama pull`),
or a model whose template cannot fill in the middle.
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx

from lsp_agent.completion.backends.base import BackendUnavailable, FimRequest, FimResult
from lsp_agent.completion.config import CompletionConfig
from lsp_agent.completion.postprocess import stop_index

TIMEOUT = httpx.Timeout(120.0, connect=3.0)
NANOSECONDS_PER_MS = 1_000_000


class OllamaBackend:
    """`/api/generate` of the Ollama at `COMPLETION_API_BASE` (default http://localhost:11434)."""

    def __init__(self, config: CompletionConfig) -> None:
        self.config = config
        self.url = config.base_url() + "/api/generate"
        self.label = f"Ollama at {config.base_url()}"
        self._client = httpx.AsyncClient(timeout=TIMEOUT, trust_env=False)

    async def warm_up(self) -> None:
        return None

    def body(self, request: FimRequest) -> dict[str, Any]:
        ctx = request.context
        options: dict[str, Any] = {"num_predict": request.max_tokens, "temperature": 0}
        if ctx.single_line:
            options["stop"] = ["\n"]
        return {
            "model": self.config.server_model,
            "prompt": ctx.prefix + ctx.middle,
            "suffix": ctx.suffix,
            "stream": True,
            "options": options,
        }

    async def complete(self, request: FimRequest) -> FimResult:
        try:
            async with self._client.stream("POST", self.url, json=self.body(request)) as response:
                if response.status_code >= 400:
                    await response.aread()
                    raise BackendUnavailable(self._refusal(response))
                return await self._read(response, request)
        except httpx.HTTPError as exc:
            raise BackendUnavailable(
                f"cannot reach {self.label}: {exc or type(exc).__name__}"
            ) from exc

    async def _read(self, response: httpx.Response, request: FimRequest) -> FimResult:
        text = ""
        chunks = 0
        first: float | None = None
        async for line in response.aiter_lines():
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except ValueError as exc:
                raise BackendUnavailable(f"{self.label} streamed a line that is not JSON") from exc
            if data.get("error"):
                raise BackendUnavailable(f"{self.label}: {data['error']}")
            piece = str(data.get("response", ""))
            text += piece
            chunks += 1 if piece else 0
            first = first if first is not None or not piece else time.monotonic()
            if data.get("done"):
                return _result(text, data)
            cut = stop_index(text, request.context)
            if cut is not None:
                return FimResult(text[:cut], generated_tokens=chunks, stopped="stop rule")
            if "\n" in piece and _past(first, request.predict_ms):
                return FimResult(text[: text.rfind("\n")], generated_tokens=chunks, stopped="time")
        return FimResult(text, generated_tokens=chunks)

    def _refusal(self, response: httpx.Response) -> str:
        try:
            message = str(response.json().get("error", ""))
        except ValueError:
            message = response.text[:200]
        name = self.config.server_model
        if response.status_code == 404:
            return f"{self.label} has no model {name!r} ({message}): run `ollama pull {name}`"
        if "insert" in message or "suffix" in message:
            return f"{self.label}: the model {name!r} cannot fill in the middle ({message})"
        return f"{self.label} refused the request: HTTP {response.status_code}: {message}"

    async def close(self) -> None:
        await self._client.aclose()


def _past(since: float | None, budget_ms: int) -> bool:
    """More than `budget_ms` since `since` (never with no budget or no start)."""
    return since is not None and budget_ms > 0 and (time.monotonic() - since) * 1000 > budget_ms


def _result(text: str, data: dict[str, Any]) -> FimResult:
    """The last streamed object carries the counts and durations (nanoseconds)."""
    return FimResult(
        text=text,
        prompt_tokens=int(data.get("prompt_eval_count", 0) or 0),
        generated_tokens=int(data.get("eval_count", 0) or 0),
        stopped=str(data.get("done_reason", "end")),
        prompt_ms=float(data.get("prompt_eval_duration", 0) or 0) / NANOSECONDS_PER_MS,
        predict_ms=float(data.get("eval_duration", 0) or 0) / NANOSECONDS_PER_MS,
    )
