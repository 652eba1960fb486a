"""The job thread's calls to the ACP client, run on the event loop and waited for.

The agent job runs in a worker thread; the connection lives on the asyncio loop. Every
call here is scheduled on the loop with `run_coroutine_threadsafe` and waited for, so
session updates reach the client in the order the job made them. A wait that can block
on the user (a permission question) also watches the job's cancel event.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

SessionUpdate = ToolCallStart | ToolCallProgress | AgentMessageChunk | AgentPlanUpdate
CALL_TIMEOUT_S = 30.0


class ClientConnection(Protocol):
    """The part of the SDK's `AgentSideConnection` the jobs use."""

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None: ...

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        **kwargs: Any,
    ) -> RequestPermissionResponse: ...

    async def read_text_file(self, session_id: str, path: str, **kwargs: Any) -> Any: ...

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> Any: ...


class ClientCallError(RuntimeError):
    """The client answered a call with an error, or did not answer in time."""


@dataclass(frozen=True)
class FileAccess:
    """The client's `fs` capabilities from `initialize`."""

    read: bool = False
    write: bool = False


@dataclass(eq=False)
class ClientCalls:
    """Calls from the job thread to the client of one session."""

    connection: ClientConnection
    loop: asyncio.AbstractEventLoop
    session_id: str
    files: FileAccess

    def _submit(self, call: Coroutine[Any, Any, T]) -> Future[T]:
        return asyncio.run_coroutine_threadsafe(call, self.loop)

    def _wait(self, call: Coroutine[Any, Any, T], what: str) -> T:
        future = self._submit(call)
        try:
            return future.result(CALL_TIMEOUT_S)
        except FutureTimeout:
            future.cancel()
            raise ClientCallError(f"the client did not answer {what} in time") from None
        except ConnectionError as exc:
            raise ClientCallError(f"the client is gone ({what}): {exc}") from exc
        except Exception as exc:  # the client's JSON-RPC error (RequestError) and the like
            raise ClientCallError(f"the client answered {what} with an error: {exc}") from exc

    def update(self, update: SessionUpdate) -> None:
        """Send one `session/update`; a failure is logged, never raised into the job."""
        try:
            self._wait(self.connection.session_update(self.session_id, update), "session/update")
        except ClientCallError as exc:
            log.warning("acp: %s", exc)

    def read_text(self, path: str) -> str:
        response = self._wait(
            self.connection.read_text_file(self.session_id, path), "fs/read_text_file"
        )
        return str(response.content)

    def write_text(self, path: str, content: str) -> None:
        self._wait(
            self.connection.write_text_file(self.session_id, path, content), "fs/write_text_file"
        )

    def request_permission(
        self,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        cancel: threading.Event,
        timeout_s: float,
    ) -> str | None:
        """The option id the user chose; None for a cancelled or unanswered question."""
        future = self._submit(
            self.connection.request_permission(self.session_id, tool_call, options)
        )
        waited = 0.0
        while waited < timeout_s:
            if cancel.is_set():
                future.cancel()
                return None
            try:
                response = future.result(0.1)
            except FutureTimeout:
                waited += 0.1
                continue
            except Exception as exc:
                log.warning("acp: session/request_permission failed: %s", exc)
                return None
            outcome = response.outcome
            return getattr(outcome, "option_id", None) if outcome.outcome == "selected" else None
        future.cancel()
        return None
