"""The warm-up gives way to the editor: it pauses while messages come and go.

The warm-up (`lsp_agent.agent.warmup`) imports the agent machinery in a background thread.
Every message the editor sends needs the GIL several times on its way through the loop
(the reader thread, the loop, the handler, the writer); a warm-up thread running at the
same time takes it back every switch interval, or for a whole C call. So the warm-up
pauses before each module it imports while the connection is busy: a message was read or
handled in the last `QUIET_S`. The first job opens the gate for good (it needs the same
imports at once), and so does `MAX_PAUSED_S` of pausing in all: an editor that never stops
talking does not keep the agent cold for ever.
"""

from __future__ import annotations

import threading
import time
from typing import BinaryIO

__all__ = ["MAX_PAUSED_S", "QUIET_S", "ActivityReader", "WarmUpGate"]

QUIET_S = 0.01
MAX_PAUSED_S = 3.0


class WarmUpGate:
    """Activity on the connection, and a `pause()` that waits for a quiet moment."""

    def __init__(self, quiet_s: float = QUIET_S, max_paused_s: float = MAX_PAUSED_S) -> None:
        self.quiet_s = quiet_s
        self.max_paused_s = max_paused_s
        self._last = 0.0
        self._open = threading.Event()
        self.paused_s = 0.0  # how long the warm-up waited, for the log and the bench

    def touch(self) -> None:
        """A message was read or written."""
        self._last = time.monotonic()

    def open(self) -> None:
        """No more pauses (a job needs what the warm-up loads)."""
        self._open.set()

    def pause(self) -> None:
        """Wait until nothing has moved on the connection for `quiet_s` (or the gate opens)."""
        while not self._open.is_set():
            busy_for = self._last + self.quiet_s - time.monotonic()
            if busy_for <= 0:
                return
            started = time.monotonic()
            self._open.wait(min(busy_for, self.max_paused_s - self.paused_s))
            self.paused_s += time.monotonic() - started
            if self.paused_s >= self.max_paused_s:
                self._open.set()


class ActivityReader:
    """The server's stdin, telling the gate each time a header line or a body arrives."""

    def __init__(self, stream: BinaryIO, gate: WarmUpGate) -> None:
        self.stream = stream
        self.gate = gate

    def readline(self) -> bytes:
        line = self.stream.readline()
        self.gate.touch()
        return line

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        self.gate.touch()
        return data
