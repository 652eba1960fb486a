"""How real OpenAI-compatible servers refuse requests, for `ScriptedOpenAIServer(rejects=...)`.

Each function takes a chat request body and returns `(HTTP status, error body)` when that
server would refuse it, else None (the scripted turn answers).
"""

from __future__ import annotations

from typing import Any

RejectionReply = tuple[int, dict[str, Any]]


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def llama_cpp_python(body: Any) -> RejectionReply | None:
    """llama-cpp-python 0.3.36 `llama_cpp.server` with `--chat_format chatml-function-calling`.

    A `response_format` other than `text`/`json_object` fails request validation, and its
    error handler turns that into HTTP 500 naming the field; `tool_choice: "required"` with
    tools trips `assert tool_choice == "auto"` in the chat handler: HTTP 500, empty message.
    """
    if not isinstance(body, dict):
        return None
    response_format = body.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") not in (
        "text",
        "json_object",
    ):
        message = (
            "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
            "'msg': \"Input should be 'text' or 'json_object'\", "
            f"'input': {response_format.get('type')!r}}}]"
        )
        return 500, _error(message, "internal_server_error")
    if body.get("tools") and body.get("tool_choice") == "required":
        return 500, _error("", "internal_server_error")
    return None


def rejects_parameter(parameter: str, status: int = 400) -> Any:
    """A strict server that refuses any request carrying `parameter` (e.g. 400 or 422)."""

    def reject(body: Any) -> RejectionReply | None:
        if isinstance(body, dict) and parameter in body:
            message = f"Unrecognized request argument supplied: {parameter}"
            return status, _error(message, "invalid_request_error")
        return None

    return reject


def always_fails(status: int, message: str) -> Any:
    """A server that answers every chat request with `status` and `message` (unrelated)."""

    def reject(body: Any) -> RejectionReply | None:
        return status, _error(message, "server_error")

    return reject
