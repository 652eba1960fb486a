"""llama.cpp's `llama-server`: `POST /infill` (`COMPLETION_MODEL_ID=openai/<name>`).

The request is llama.vim's: `input_prefix`, `input_suffix`, `input_extra` (other files, which the
server puts in the model's repo-level format), `prompt` (MIDDLE: the text typed since the
anchor), `n_indent` (the server stops at a line less indented than the cursor line),
`cache_prompt` (the server keeps the prompt's KV cache and reads only what changed; start it
with `--cache-reuse 256` to also reuse chunks further on), `t_max_predict_ms` and, where the
server implements it, `t_max_prompt_ms`. With text after the cursor, generation stops at the
end of the line (`stop: ["\\n"]`).

Errors become `BackendUnavailable` with what to do: the server is not reachable, it has no
`/infill` (not a llama-server: Ollama users pick `ollama/<name>`), or its model has no
fill-in-the-middle tokens.
"""

from __future__ import annotations

from typing import Any

import httpx

from lsp_agent.completion.backends.base import BackendUnavailable, FimRequest, FimResult
from lsp_agent.completion.config import CompletionConfig

TIMEOUT = httpx.Timeout(120.0, connect=3.0)
RESPONSE_FIELDS = [
    "content",
    "tokens_cached",
    "stop_type",
    "timings/prompt_n",
    "timings/prompt_ms",
    "timings/predicted_n",
    "timings/predicted_ms",
]


class LlamaServerBackend:
    """`/infill` of the llama-server at `COMPLETION_API_BASE` (default http://127.0.0.1:8080)."""

    def __init__(self, config: CompletionConfig) -> None:
        self.config = config
        self.url = config.base_url() + "/infill"
        self.label = f"llama-server at {config.base_url()}"
        self._client = httpx.AsyncClient(timeout=TIMEOUT, trust_env=False)

    async def warm_up(self) -> None:
        return None

    async def complete(self, request: FimRequest) -> FimResult:
        try:
            response = await self._client.post(self.url, json=self.body(request))
        except httpx.HTTPError as exc:
            raise BackendUnavailable(f"cannot reach {self.label}: {_reason(exc)}") from exc
        if response.status_code == 404:
            raise BackendUnavailable(
                f"{self.url} does not exist: is {self.config.base_url()} llama.cpp's "
                "llama-server? (For Ollama, set COMPLETION_MODEL_ID=ollama/<name>.)"
            )
        if response.status_code >= 400:
            raise BackendUnavailable(f"{self.label} refused the request: {_error_text(response)}")
        data = _json(response)
        return FimResult(
            text=str(data.get("content", "")),
            prompt_tokens=int(_field(data, "timings", "prompt_n")),
            cached_tokens=int(data.get("tokens_cached", 0) or 0),
            generated_tokens=int(_field(data, "timings", "predicted_n")),
            stopped=str(data.get("stop_type", "end")),
            prompt_ms=float(_field(data, "timings", "prompt_ms")),
            predict_ms=float(_field(data, "timings", "predicted_ms")),
        )

    def body(self, request: FimRequest) -> dict[str, Any]:
        """The `/infill` request body (llama.vim's fields)."""
        ctx = request.context
        body: dict[str, Any] = {
            "input_prefix": ctx.prefix,
            "input_suffix": ctx.suffix,
            "input_extra": [{"filename": c.path, "text": c.text} for c in request.extras],
            "prompt": ctx.middle,
            "n_predict": request.max_tokens,
            "n_indent": ctx.indent,
            "top_k": 40,
            "top_p": 0.90,
            "samplers": ["top_k", "top_p", "infill"],
            "stream": False,
            "cache_prompt": True,
            "t_max_predict_ms": request.predict_ms,
            "response_fields": RESPONSE_FIELDS,
        }
        if request.prompt_ms > 0:
            body["t_max_prompt_ms"] = request.prompt_ms
        if ctx.single_line:
            body["stop"] = ["\n"]
        if self.config.server_model:
            body["model"] = self.config.server_model
        return body

    async def close(self) -> None:
        await self._client.aclose()


def _reason(exc: httpx.HTTPError) -> str:
    return str(exc) or type(exc).__name__


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError as exc:
        raise BackendUnavailable(
            f"{response.url} answered with something that is not JSON"
        ) from exc
    if not isinstance(data, dict):
        raise BackendUnavailable(f"{response.url} answered with JSON that is not an object")
    return data


def _error_text(response: httpx.Response) -> str:
    """The server's own message (`{"error": {"message": …}}`), else the start of the body."""
    try:
        data = response.json()
    except ValueError:
        return f"HTTP {response.status_code}: {response.text[:200]}"
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and error.get("message"):
        return f"HTTP {response.status_code}: {error['message']}"
    if isinstance(error, str):
        return f"HTTP {response.status_code}: {error}"
    return f"HTTP {response.status_code}: {response.text[:200]}"


def _field(data: dict[str, Any], group: str, name: str) -> float:
    """`timings/prompt_n` (as `response_fields` flattens it) or `timings.prompt_n`."""
    value = data.get(f"{group}/{name}")
    if value is None and isinstance(data.get(group), dict):
        value = data[group].get(name)
    return float(value or 0)
