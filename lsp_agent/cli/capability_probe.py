"""What a model endpoint supports, found with one tiny request per feature (`lsp-agent doctor`).

OpenAI-compatible endpoints (`openai/…`, `hosted_vllm/…` with `MODEL_API_BASE`) are asked for:
tool calls (`tool_choice: "auto"`), `tool_choice: "required"`, `response_format` `json_schema`
and `json_object`, and streaming. Ollama ids are asked at `/api/chat` for tool calls, a JSON
schema in `format`, and streaming (Ollama has no `tool_choice`). Each request allows a few
tokens; a feature counts as supported when the server answers HTTP 200 (tool calls also say
whether a call came back). What the agent does when a feature is missing is in
`lsp_agent.models.capabilities`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from safety.host_env import user_environ

PROBE_TIMEOUT_S = 60.0
PROBE_MAX_TOKENS = 24
MAX_DETAIL_CHARS = 160
PING_TOOL = {
    "type": "function",
    "function": {
        "name": "ping",
        "description": "Answer the user's ping.",
        "parameters": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
}
OK_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
CALL_PING = [{"role": "user", "content": "Call the ping tool with text 'hi'."}]
ANSWER_JSON = [{"role": "user", "content": 'Reply with the JSON object {"ok": true}.'}]


@dataclass(frozen=True)
class FeatureProbe:
    """One feature: supported (True/False) and what the server said."""

    feature: str
    supported: bool
    detail: str
    fallback: str = ""  # what the agent does without it


Post = Callable[[str, dict[str, Any]], "tuple[int, Any]"]


def probe_endpoint(
    model_id: str, api_base: str, *, timeout_s: float = PROBE_TIMEOUT_S
) -> list[FeatureProbe]:
    """Probe `api_base` for `model_id`; [] for providers this cannot probe."""
    name = model_id.split("/", 1)[1] if "/" in model_id else model_id
    if model_id.startswith(("ollama/", "ollama_chat/")):
        return _ollama_probes(_poster(api_base, timeout_s, ""), name)
    if model_id.startswith(("openai/", "hosted_vllm/")) and api_base:
        key = user_environ().get("OPENAI_API_KEY", "") or "sk-no-key-required"
        return _openai_probes(_poster(api_base, timeout_s, key), name)
    return []


def _poster(base: str, timeout_s: float, key: str) -> Post:
    headers = {"Authorization": f"Bearer {key}"} if key else {}

    def post(path: str, body: dict[str, Any]) -> tuple[int, Any]:
        url = base.rstrip("/") + path
        try:
            if body.get("stream"):
                with httpx.stream("POST", url, json=body, headers=headers, timeout=timeout_s) as r:
                    lines = [line for line in r.iter_lines() if line.strip()]
                    return r.status_code, lines
            reply = httpx.post(url, json=body, headers=headers, timeout=timeout_s)
        except httpx.HTTPError as exc:
            return 0, f"{type(exc).__name__}: {exc}"
        try:
            return reply.status_code, reply.json()
        except ValueError:
            return reply.status_code, reply.text

    return post


def _refusal(status: int, payload: Any) -> str:
    if status == 0:
        return str(payload)[:MAX_DETAIL_CHARS]
    message = payload
    if isinstance(payload, dict):
        error = payload.get("error", payload.get("detail", payload))
        message = error.get("message", error) if isinstance(error, dict) else error
    text = " ".join(str(message).split())[:MAX_DETAIL_CHARS]
    return f"HTTP {status}" + (f": {text}" if text else " (no message)")


def _openai_probes(post: Post, name: str) -> list[FeatureProbe]:
    base = {"model": name, "max_tokens": PROBE_MAX_TOKENS, "temperature": 0}

    def tool_probe(choice: str, fallback: str) -> FeatureProbe:
        body = {**base, "messages": CALL_PING, "tools": [PING_TOOL], "tool_choice": choice}
        status, payload = post("/chat/completions", body)
        feature = "tools" if choice == "auto" else f"tool_choice={choice}"
        if status != 200:
            return FeatureProbe(feature, False, _refusal(status, payload), fallback)
        message = _first_message(payload)
        came_back = "a tool call came back" if message.get("tool_calls") else "answered in text"
        return FeatureProbe(feature, True, f"accepted; {came_back}")

    def format_probe(kind: str, fallback: str) -> FeatureProbe:
        response_format: dict[str, Any] = {"type": kind}
        if kind == "json_schema":
            response_format["json_schema"] = {"name": "ok", "schema": OK_SCHEMA}
        body = {**base, "messages": ANSWER_JSON, "response_format": response_format}
        status, payload = post("/chat/completions", body)
        feature = f"response_format={kind}"
        if status != 200:
            return FeatureProbe(feature, False, _refusal(status, payload), fallback)
        content = str(_first_message(payload).get("content") or "")
        return FeatureProbe(feature, True, f"accepted; replied {_short(content)}")

    probes = [
        tool_probe("auto", "tool calls written as text are parsed"),
        tool_probe("required", "the agent sends tool_choice=auto"),
        format_probe("json_schema", "json_object with the tool calls listed in the prompt"),
        format_probe("json_object", "no response_format; the calls stay listed in the prompt"),
    ]
    status, payload = post("/chat/completions", {**base, "messages": CALL_PING, "stream": True})
    probes.append(_stream_probe(status, payload, lambda line: line.startswith("data:")))
    return probes


def _ollama_probes(post: Post, name: str) -> list[FeatureProbe]:
    options = {"num_predict": PROBE_MAX_TOKENS, "temperature": 0}
    base = {"model": name, "options": options, "stream": False}
    status, payload = post("/api/chat", {**base, "messages": CALL_PING, "tools": [PING_TOOL]})
    if status == 200:
        message = payload.get("message", {}) if isinstance(payload, dict) else {}
        came_back = "a tool call came back" if message.get("tool_calls") else "answered in text"
        tools = FeatureProbe("tools", True, f"accepted; {came_back}")
    else:
        tools = FeatureProbe("tools", False, _refusal(status, payload), "calls parsed from text")
    status, payload = post("/api/chat", {**base, "messages": ANSWER_JSON, "format": OK_SCHEMA})
    if status == 200:
        content = str((payload.get("message") or {}).get("content") or "")
        schema = FeatureProbe("format=<JSON schema>", True, f"accepted; replied {_short(content)}")
    else:
        schema = FeatureProbe("format=<JSON schema>", False, _refusal(status, payload), "none")
    status, lines = post("/api/chat", {**base, "messages": CALL_PING, "stream": True})
    return [tools, schema, _stream_probe(status, lines, lambda line: line.startswith("{"))]


def _stream_probe(status: int, payload: Any, is_chunk: Callable[[str], bool]) -> FeatureProbe:
    if status != 200 or not isinstance(payload, list):
        return FeatureProbe("streaming", False, _refusal(status, payload), "not used by the agent")
    chunks = [line for line in payload if is_chunk(line)]
    if not chunks:
        return FeatureProbe("streaming", False, "HTTP 200 but no chunks", "not used by the agent")
    return FeatureProbe("streaming", True, f"{len(chunks)} chunks")


def _first_message(payload: Any) -> dict[str, Any]:
    try:
        message = payload["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        return {}
    return message if isinstance(message, dict) else {}


def _short(text: str) -> str:
    text = " ".join(text.split())
    return json.dumps(text[:40] + ("…" if len(text) > 40 else ""), ensure_ascii=False)
