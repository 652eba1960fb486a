"""Reply bodies in the OpenAI chat-completions and Ollama `/api/chat` wire formats."""

from __future__ import annotations

import json
import time
from typing import Any

from lsp_agent.models.scripted.script import ScriptTurn

SCRIPTED_MODEL_NAME = "scripted"
OLLAMA_SHOW_REPLY = {  # what LiteLLM reads from `/api/show`: tool support and context length
    "template": "{{- if .Tools }}{{ .Tools }}{{ end }}{{ .Prompt }}",
    "capabilities": ["completion", "tools"],
    "model_info": {"general.architecture": "scripted", "scripted.context_length": 32768},
}


def _estimate_tokens(value: Any) -> int:
    return max(1, len(json.dumps(value, default=str)) // 4)


def _openai_message(turn: ScriptTurn, index: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text}
    if turn.calls:
        message["tool_calls"] = [
            {
                "id": f"call_{index}_{i}",
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_text()},
            }
            for i, call in enumerate(turn.calls)
        ]
    elif turn.text is None:
        message["content"] = ""
    return message


def openai_completion(turn: ScriptTurn, index: int, request: Any) -> dict[str, Any]:
    message = _openai_message(turn, index)
    prompt_tokens = _estimate_tokens(
        request.get("messages", []) if isinstance(request, dict) else 0
    )
    completion_tokens = _estimate_tokens(message)
    return {
        "id": f"chatcmpl-scripted-{index}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", SCRIPTED_MODEL_NAME) if isinstance(request, dict) else "",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if turn.calls else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def openai_stream_chunks(turn: ScriptTurn, index: int, request: Any) -> list[dict[str, Any]]:
    """The same reply as SSE chunks: role, content, each tool call, finish, usage."""
    full = openai_completion(turn, index, request)
    base = {k: full[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    message = full["choices"][0]["message"]

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return base | {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant", "content": message.get("content") or ""})]
    for i, call in enumerate(message.get("tool_calls", [])):
        chunks.append(chunk({"tool_calls": [{"index": i, **call}]}))
    chunks.append(chunk({}, full["choices"][0]["finish_reason"]))
    chunks.append(base | {"choices": [], "usage": full["usage"]})
    return chunks


def ollama_chat_reply(turn: ScriptTurn, request: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or ""}
    if turn.calls:
        message["tool_calls"] = [
            {"function": {"name": call.name, "arguments": call.arguments}} for call in turn.calls
        ]
    messages = request.get("messages", []) if isinstance(request, dict) else []
    return {
        "model": request.get("model", SCRIPTED_MODEL_NAME) if isinstance(request, dict) else "",
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "message": message,
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": _estimate_tokens(messages),
        "eval_count": _estimate_tokens(message),
    }
