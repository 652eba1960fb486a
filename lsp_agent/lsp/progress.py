"""A job's `$/progress`: create, begin, report (step n of m, tool, message), end.

`window/workDoneProgress/create` is a request; nothing may be reported on the token
before the client answered it. So the reporter runs as a small state machine on the
loop thread: events that arrive while the token is being created are held (the last
`HELD_REPORTS`) and sent once the client said yes. If the client cannot show
progress (no `window.workDoneProgress`, or the create request failed) the steps go to
`window/logMessage` instead. Every method is thread-safe.
"""

from __future__ import annotations

import logging
from typing import Literal

from lsprotocol import types

from lsp_agent.agent.job_types import ProgressEvent
from lsp_agent.lsp.editor_client import EditorClient, log_message, shorten

log = logging.getLogger(__name__)

MESSAGE_CHARS = 120
HELD_REPORTS = 20
State = Literal["new", "creating", "active", "logging", "ended"]


def describe(event: ProgressEvent) -> str:
    """`step 2/25 · read_file · reading app.py`."""
    parts = [f"step {event.step}/{event.max_steps}"]
    if event.kind == "plan":  # the plan's lines on one line: `plan: 1. read … 2. fix …`
        return shorten(f"{parts[0]} · plan: {event.message}", MESSAGE_CHARS)
    if event.tool:
        parts.append(event.tool)
    if event.message and event.message != event.tool:
        parts.append(event.message)
    return shorten(" · ".join(parts), MESSAGE_CHARS)


def percentage(event: ProgressEvent) -> int:
    if event.max_steps <= 0:
        return 0
    return max(0, min(99, event.step * 100 // event.max_steps))


class ProgressReporter:
    """Progress of one job on `token`."""

    def __init__(
        self, client: EditorClient, token: str, title: str, *, supported: bool = True
    ) -> None:
        self.client = client
        self.token = token
        self.title = shorten(title, MESSAGE_CHARS)
        self.supported = supported
        self.state: State = "new"
        self._held: list[types.WorkDoneProgressReport] = []
        self._end_message: str | None = None
        self.last_message = ""

    # ---- called from any thread ----------------------------------------------------------
    def begin(self) -> None:
        self.client.call(self._begin)

    def report(self, event: ProgressEvent) -> None:
        message = describe(event)
        self.last_message = message
        value = types.WorkDoneProgressReport(
            message=message, percentage=percentage(event), cancellable=True
        )
        self.client.call(lambda: self._report(value))

    def note(self, message: str) -> None:
        """A report without a step (e.g. waiting for an approval)."""
        self.last_message = shorten(message, MESSAGE_CHARS)
        value = types.WorkDoneProgressReport(message=self.last_message, cancellable=True)
        self.client.call(lambda: self._report(value))

    def end(self, message: str) -> None:
        self.client.call(lambda: self._end(shorten(message, MESSAGE_CHARS)))

    # ---- on the loop thread --------------------------------------------------------------
    def _begin(self) -> None:
        if self.state != "new":
            return
        if not self.supported:
            self.state = "logging"
            return
        self.state = "creating"
        future = self.client.request(
            types.WINDOW_WORK_DONE_PROGRESS_CREATE,
            types.WorkDoneProgressCreateParams(token=self.token),
        )
        future.add_done_callback(lambda f: self._created(f.exception() is None))

    def _created(self, ok: bool) -> None:
        if self.state != "creating":
            return
        if not ok:
            log.info("the client refused progress token %s; logging steps instead", self.token)
            self.state = "logging"
        else:
            self.state = "active"
            self._send(
                types.WorkDoneProgressBegin(
                    title=self.title, cancellable=True, message="starting", percentage=0
                )
            )
            for value in self._held:
                self._send(value)
        self._held = []
        if self._end_message is not None:
            self._end(self._end_message)

    def _report(self, value: types.WorkDoneProgressReport) -> None:
        if self.state in ("creating", "new"):
            self._held = [*self._held[-(HELD_REPORTS - 1) :], value]
        elif self.state == "active":
            self._send(value)
        elif self.state == "logging" and value.message:
            log_message(self.client, types.MessageType.Log, f"{self.title}: {value.message}")

    def _end(self, message: str) -> None:
        if self.state in ("creating", "new"):
            self._end_message = message  # sent once the token exists
            if self.state == "new":
                self.state = "ended"
            return
        if self.state == "active":
            self._send(types.WorkDoneProgressEnd(message=message))
        self.state = "ended"

    def _send(self, value: object) -> None:
        self.client.notify(types.PROGRESS, types.ProgressParams(token=self.token, value=value))
