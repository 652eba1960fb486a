"""One decode step at a time on one model's weights: typing goes first, the agent is never shut out.

The agent and inline completions use two llama.cpp contexts of the same loaded model. Both
decode on the same few cores, so running them together only slows both; the gate lets one
`llama_decode` call (a step: one batch of prompt tokens, or one generated token) run at a time
and chooses who goes next:

- a waiting completion step goes before a waiting agent step, and a completion request keeps
  its turn between two of its steps (while it samples the next token): a keystroke's
  completion waits at most for the agent step already running when it began;
- the agent is owed the next step when a completion request ends while it waits, and when
  completion steps have run back to back for longer than `fair_after_s` while it waited; so
  completions hold the agent up for at most that long at a time, and typing without pause
  cannot starve it.

A completion request marks its end with `request_done()`. `waited_s[lane]` adds up the time
each lane's steps waited for the model (a completion's share of it is the agent's steps it
waited for). `history` (when given a list) records the order of steps as
`("agent" | "completion", "start" | "end")` pairs (tests).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Literal

Lane = Literal["agent", "completion"]
# A completion request shorter than this is not interrupted by agent steps (the typing
# target's p95); an agent step is seconds on a loaded 2-core machine (64 prompt tokens).
FAIR_AFTER_S = 2.5
POLL_S = 0.05


class DecodeGate:
    """The scheduling rule above, for any number of threads in two lanes."""

    def __init__(
        self,
        *,
        fair_after_s: float = FAIR_AFTER_S,
        clock: Callable[[], float] = time.monotonic,
        history: list[tuple[Lane, str]] | None = None,
    ) -> None:
        self.fair_after_s = fair_after_s
        self._clock = clock
        self._cond = threading.Condition()
        self._busy = False
        self._waiting: dict[Lane, int] = {"agent": 0, "completion": 0}
        self._agent_owed = False
        self._completion_run_since: float | None = None
        self._request_since: float | None = None  # a completion request in progress since
        self.waited_s: dict[Lane, float] = {"agent": 0.0, "completion": 0.0}
        self.history = history

    def _may_go(self, lane: Lane) -> bool:
        if self._busy:
            return False
        if lane == "completion":
            return not (self._agent_owed and self._waiting["agent"])
        if self._agent_owed:
            return True
        if self._waiting["completion"]:
            return False
        # Between two steps of a completion request the agent waits, for `fair_after_s` at most.
        since = self._request_since
        return since is None or self._clock() - since >= self.fair_after_s

    @contextmanager
    def step(self, lane: Lane) -> Iterator[None]:
        """Hold the model for one decode call of `lane`."""
        with self._cond:
            self._waiting[lane] += 1
            asked = self._clock()
            try:
                while not self._may_go(lane):
                    self._cond.wait(POLL_S)  # a request's turn may run out with no one notifying
            finally:
                self._waiting[lane] -= 1
                self.waited_s[lane] += self._clock() - asked
            if lane == "completion" and self._request_since is None:
                self._request_since = self._clock()
            self._busy = True
            self._record(lane, "start")
        try:
            yield
        finally:
            with self._cond:
                self._busy = False
                self._record(lane, "end")
                self._after(lane)
                self._cond.notify_all()

    def _after(self, lane: Lane) -> None:
        if lane == "agent":
            self._agent_owed = False
            self._completion_run_since = None
            return
        if not self._waiting["agent"]:
            self._completion_run_since = None
            return
        now = self._clock()
        if self._completion_run_since is None:
            self._completion_run_since = now
        elif now - self._completion_run_since >= self.fair_after_s:
            self._agent_owed = True

    def request_done(self) -> None:
        """A completion request ended: a waiting agent gets the next step."""
        with self._cond:
            if self._waiting["agent"]:
                self._agent_owed = True
            self._completion_run_since = None
            self._request_since = None
            self._cond.notify_all()

    def _record(self, lane: Lane, event: str) -> None:
        if self.history is not None:
            self.history.append((lane, event))

    def gated(self, lane: Lane, decode: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """`decode` (a context's `decode(batch)`) taking one step of `lane` per call."""

        def decode_in_turn(batch: Any) -> Any:
            with self.step(lane):
                return decode(batch)

        return decode_in_turn
