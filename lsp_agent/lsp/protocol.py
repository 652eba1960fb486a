"""A pygls protocol that answers bad input instead of dropping it.

pygls drops a request whose params do not match the method's types (it only logs), so
the client would wait forever; and it silently ignores requests after `shutdown`. Here:

- a request with malformed params gets `InvalidParams` (-32602) with the reason;
- a request with a bad `jsonrpc` version or after `shutdown` gets `InvalidRequest`;
- anything that is not a JSON-RPC object (a list, a number, broken JSON) is logged and
  dropped — there is no id to answer to;
- errors about malformed messages are logged, never shown to the user one by one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger(__name__)


class BadRequest:
    """Stands in for a request whose params could not be decoded."""

    def __init__(self, msg_id: Any, method: str, error: Exception, jsonrpc: Any) -> None:
        self.id = msg_id
        self.method = method
        self.error = error
        self.jsonrpc = jsonrpc


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


class AgentProtocol(LanguageServerProtocol):
    """`LanguageServerProtocol` with answers for malformed requests."""

    on_activity: Callable[[], None] | None = None
    """Called as each message is handled and once it was (the warm-up gives way)."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except Exception as exc:
            if "method" in data and "id" in data and _valid_id(data["id"]):
                return BadRequest(data["id"], str(data["method"]), exc, data.get("jsonrpc"))
            raise

    def handle_message(self, message: Any) -> None:
        activity = self.on_activity
        if activity is not None:
            activity()
        try:
            self._handle(message)
        finally:
            if activity is not None:
                activity()

    def _handle(self, message: Any) -> None:
        if isinstance(message, BadRequest):
            problem = self._request_problem(message.jsonrpc, message.method)
            if problem:
                self._refuse(message.id, JsonRpcInvalidRequest(problem))
                return
            log.warning("invalid params for %r (id %r)", message.method, message.id)
            cause = message.error.__cause__ or message.error
            reason = f"Invalid params for {message.method}: {_first_line(cause)}"
            self._refuse(message.id, JsonRpcInvalidParams(reason))
            return
        if not hasattr(message, "jsonrpc"):
            log.warning("dropped a message that is not a JSON-RPC object: %.200r", message)
            return
        method = getattr(message, "method", None)
        msg_id: Any = getattr(message, "id", None)
        if method is not None and _valid_id(msg_id):
            problem = self._request_problem(message.jsonrpc, method)
            if problem:
                self._refuse(msg_id, JsonRpcInvalidRequest(problem))
                return
        super().handle_message(message)

    def _request_problem(self, jsonrpc: Any, method: str) -> str:
        if jsonrpc != self.VERSION:
            return f"jsonrpc must be {self.VERSION!r}"
        if self._shutdown and method != types.EXIT:
            return "the server is shutting down"
        return ""

    def _refuse(self, msg_id: Any, error: JsonRpcInvalidParams | JsonRpcInvalidRequest) -> None:
        self._send_response(msg_id, None, error.to_response_error())


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0][:300] if text else type(error).__name__
