"""`EditorClient` on pygls's event loop: jobs in worker threads talk to the editor safely.

pygls's protocol is not thread-safe (its pending-request table, its writer), so every
message a job sends is handed to the loop thread with `call_soon_threadsafe`; a request's
concurrent future resolves on the loop thread when the response arrives and the worker
waits on it with a timeout. Called on the loop thread itself, work runs inline.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from pygls.lsp.server import LanguageServer

log = logging.getLogger(__name__)

T = TypeVar("T")


class LoopBridge:
    """Thread-safe access to one language server's connection."""

    def __init__(self, server: LanguageServer) -> None:
        self.server = server
        self.loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None

    def attach(self) -> None:
        """Remember the running loop (call from a handler on the loop thread)."""
        try:
            self.loop = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None
        self._loop_thread = threading.get_ident() if self.loop is not None else None

    def call(self, fn: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(fn())
            except BaseException as exc:
                future.set_exception(exc)

        loop = self.loop
        if loop is None or threading.get_ident() == self._loop_thread:
            run()
        elif loop.is_closed():
            future.set_exception(RuntimeError("the language server has stopped"))
        else:
            try:
                loop.call_soon_threadsafe(run)
            except RuntimeError as exc:  # closed between the check and the call
                future.set_exception(exc)
        return future

    def request(self, method: str, params: Any) -> Future[Any]:
        outer: Future[Any] = Future()

        def send() -> None:
            inner = self.server.protocol.send_request(method, params)
            inner.add_done_callback(lambda done: _copy(done, outer))

        sent = self.call(send)
        sent.add_done_callback(lambda done: _fail_if_error(done, outer))
        return outer

    def notify(self, method: str, params: Any) -> None:
        self.call(lambda: self.server.protocol.notify(method, params))


def _copy(source: Future[Any], target: Future[Any]) -> None:
    if target.done():
        return
    if source.cancelled():
        target.set_exception(RuntimeError("the request was cancelled"))
    elif (error := source.exception()) is not None:
        target.set_exception(error)
    else:
        target.set_result(source.result())


def _fail_if_error(sent: Future[Any], target: Future[Any]) -> None:
    error = sent.exception()
    if error is not None and not target.done():
        log.warning("could not send a request to the client: %s", error)
        target.set_exception(error)
