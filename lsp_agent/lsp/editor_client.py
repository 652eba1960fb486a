"""What a job (running in a worker thread) may ask of the editor, without knowing pygls.

The server implements `EditorClient` on its event loop (`lsp_agent.lsp.bridge`): every
method is safe to call from any thread; messages are sent from the loop thread only.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Protocol, TypeVar

from lsprotocol import types

from safety.truncation import shorten_line

T = TypeVar("T")


class EditorClient(Protocol):
    def notify(self, method: str, params: Any) -> None:
        """Send a notification (fire and forget)."""
        ...

    def request(self, method: str, params: Any) -> Future[Any]:
        """Send a request; the future resolves (on the loop thread) with the response."""
        ...

    def call(self, fn: Callable[[], T]) -> Future[T]:
        """Run `fn` on the loop thread, between two incoming messages."""
        ...


def show_message(client: EditorClient, kind: types.MessageType, text: str) -> None:
    client.notify(types.WINDOW_SHOW_MESSAGE, types.ShowMessageParams(type=kind, message=text))


def log_message(client: EditorClient, kind: types.MessageType, text: str) -> None:
    client.notify(types.WINDOW_LOG_MESSAGE, types.LogMessageParams(type=kind, message=text))


def shorten(text: str, limit: int) -> str:
    """One line of at most `limit` characters, cut between words."""
    return shorten_line(text, limit)
