"""Run state of one agent run: steps, recorded tool calls and loop detection.

Loops (the same call again and again, A-B-A-B ping-pong, a round of three to six
different calls made again, A-B-C-A-B-C, the same error over and over) first produce a
hint for the model; when the same loop is detected again after ``patience`` hints the run
is stopped (``AgentState.stopped``;
:meth:`AgentState.check` raises :class:`LoopStop`).

One tool failing call after call is a loop too, whatever its arguments (a small model
trying garbage commands one after another): a hint from the ``failure_hint_at``-th
failure in a row, a stop at the ``failure_stop_at``-th. A command that could not run at
all (shell exit code 126 or 127) counts as a failure.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from safety.errors import is_tool_error

DETECTION_WINDOW = 16
REPEAT = "repeat"
PING_PONG = "ping_pong"
CYCLE = "cycle"
MAX_CYCLE_PERIOD = 6
SAME_ERROR = "same_error"
SAME_TOOL_FAILING = "same_tool_failing"
STEP_LIMIT = "step_limit"
NO_PROGRESS = "no_progress"  # an attempt whose versions stopped passing more tests


class ToolCall(NamedTuple):
    """One recorded tool call (a NamedTuple: recorded on every call, so kept cheap)."""

    step: int
    tool: str
    args_hash: str
    ok: bool
    error: str | None
    duration_s: float
    at: float


@dataclass(frozen=True)
class LoopSignal:
    """A detected loop: a hint for the model, and whether the run must stop."""

    kind: str
    hint: str
    count: int
    stop: bool = False


class LoopStop(RuntimeError):
    """Raised by :meth:`AgentState.check` once the run has been stopped."""

    def __init__(self, signal: LoopSignal) -> None:
        super().__init__(signal.hint)
        self.signal = signal


# Shell exit codes that mean the command never ran.
COMMAND_NOT_RUN = {126: "was found but cannot be executed", 127: "was not found"}


def command_not_run(result: Any) -> str | None:
    """The error of a command result whose command never ran (exit 126/127), else None."""
    if not isinstance(result, Mapping):
        return None
    code = result.get("exit_code")
    if code not in COMMAND_NOT_RUN:
        return None
    return f"exit code {code}: the command {COMMAND_NOT_RUN[code]}"


# One encoder, built once: json.dumps with options builds a new one on every call (~1 µs of
# the wrapper's per-call cost).
_CANONICAL_JSON = json.JSONEncoder(sort_keys=True, default=repr, ensure_ascii=False)


def args_json(args: Mapping[str, Any] | None) -> str:
    """Tool arguments as canonical JSON (key order does not matter)."""
    return _CANONICAL_JSON.encode(args or {})


def digest_of(canonical_json: str) -> str:
    """The short hash of `args_json(...)` output."""
    return hashlib.sha256(canonical_json.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def args_hash(args: Mapping[str, Any] | None) -> str:
    """A stable hash of tool arguments (key order does not matter)."""
    return digest_of(args_json(args))


class AgentState:
    """Step counter, call history and loop detection for one run (one thread)."""

    def __init__(
        self,
        *,
        max_steps: int = 25,
        repeat_limit: int = 3,
        error_limit: int = 3,
        ping_pong_cycles: int = 2,
        patience: int = 1,
        failure_hint_at: int = 2,
        failure_stop_at: int = 5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if min(repeat_limit, error_limit, ping_pong_cycles, failure_hint_at) < 2 or patience < 1:
            raise ValueError("limits must be >= 2 and patience >= 1")
        if failure_stop_at <= failure_hint_at:
            raise ValueError("failure_stop_at must come after failure_hint_at")
        self.max_steps = max_steps
        self.repeat_limit = repeat_limit
        self.error_limit = error_limit
        self.ping_pong_cycles = ping_pong_cycles
        self.patience = patience
        self.failure_hint_at = failure_hint_at
        self.failure_stop_at = failure_stop_at
        self._clock = clock
        self._step = 0
        self._calls: list[ToolCall] = []
        self._since = 0  # loops are looked for in the calls from here on
        self._hinted: dict[tuple[str, str], int] = {}
        self.stopped = False
        self.stop_signal: LoopSignal | None = None

    def start_again(self) -> None:
        """A second attempt of the job starts with an empty history: the loops of the first
        are forgotten (and its stop lifted); the steps and the calls made still count."""
        self._since = len(self._calls)
        self._hinted.clear()
        self.stopped = False
        self.stop_signal = None

    @property
    def step(self) -> int:
        """The current step number (0 before the first step)."""
        return self._step

    @property
    def steps_left(self) -> int:
        """Steps remaining before ``max_steps``."""
        return max(self.max_steps - self._step, 0)

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        """Every recorded tool call, oldest first."""
        return tuple(self._calls)

    def begin_step(self) -> int:
        """Start the next step; past ``max_steps`` the run is stopped."""
        self._step += 1
        if self._step > self.max_steps and not self.stopped:
            self._stop(
                LoopSignal(
                    STEP_LIMIT,
                    f"Step limit reached ({self.max_steps} steps). Give your final answer now "
                    'with final_answer(answer="<what you found and did>").',
                    self._step,
                    stop=True,
                )
            )
        return self._step

    def record(
        self,
        tool: str,
        args: Mapping[str, Any] | None = None,
        result: Any = None,
        *,
        error: str | None = None,
        duration_s: float = 0.0,
        digest: str | None = None,
    ) -> LoopSignal | None:
        """Record a call (a tool-error dict ``result`` counts as an error); report loops."""
        if error is None and is_tool_error(result):
            error = f"{result['error']}: {result['message']}"
        if error is None:
            error = command_not_run(result)
        call = ToolCall(
            self._step,
            tool,
            digest or args_hash(args),
            error is None,
            error,
            duration_s,
            self._clock(),
        )
        self._calls.append(call)
        signal = self._detect()
        if signal is None:
            return self._failing_tool()
        key = (signal.kind, self._signature(signal.kind))
        detections = self._hinted.get(key, 0) + 1
        self._hinted[key] = detections
        if detections <= self.patience:
            return signal
        stop = LoopSignal(
            signal.kind,
            f"Stopping the run: the loop went on after a warning. {signal.hint}",
            signal.count,
            stop=True,
        )
        self._stop(stop)
        return stop

    def repeats_last_call(self, tool: str, args: Mapping[str, Any] | None) -> bool:
        """Whether calling `tool` with `args` now would repeat the last recorded call."""
        if len(self._calls) <= self._since:
            return False
        last = self._calls[-1]
        return (last.tool, last.args_hash) == (tool, args_hash(args))

    def stop(self, signal: LoopSignal) -> None:
        """Stop the run (or the attempt: `start_again` lifts it) for a reason found
        outside the call history, unless it is stopped already."""
        if not self.stopped:
            self._stop(signal)

    def check(self) -> None:
        """Raise LoopStop when the run has been stopped."""
        if self.stopped and self.stop_signal is not None:
            raise LoopStop(self.stop_signal)

    def summary(self) -> dict[str, Any]:
        """Counts for logs and traces."""
        errors = sum(1 for c in self._calls if not c.ok)
        return {
            "steps": self._step,
            "tool_calls": len(self._calls),
            "errors": errors,
            "stopped": self.stopped,
            "stop_reason": self.stop_signal.kind if self.stop_signal else None,
        }

    # ---- detection -------------------------------------------------------------------
    def _stop(self, signal: LoopSignal) -> None:
        self.stopped = True
        self.stop_signal = signal

    def _detect(self) -> LoopSignal | None:
        # Only the recent past matters, and counts only need to reach the limits: a fixed
        # window keeps each call O(1) however long the run is.
        calls = self._recent(DETECTION_WINDOW)
        last = calls[-1]
        run = 0
        for call in reversed(calls):
            if (call.tool, call.args_hash) != (last.tool, last.args_hash):
                break
            run += 1
        if run >= self.repeat_limit:
            return LoopSignal(
                REPEAT,
                f"You called {last.tool} with the same arguments {run} times in a row; "
                "repeating it will not give a different result. Use what you already have, "
                "change the arguments or the tool, or finish with "
                'final_answer(answer="<your answer>").',
                run,
            )
        errors = 0
        for call in reversed(calls):
            if call.ok or call.error != last.error:
                break
            errors += 1
        if not last.ok and errors >= self.error_limit:
            return LoopSignal(
                SAME_ERROR,
                f"The last {errors} tool calls failed with the same error ({last.error}). "
                "Read its recovery_suggestion and change your approach instead of retrying.",
                errors,
            )
        period = self._cycle_period()
        if period:
            names = " -> ".join(c.tool for c in calls[-period:])
            return LoopSignal(
                CYCLE,
                f"You made the same {period} calls twice in a row ({names}) and learnt "
                "nothing new the second time. Use what those results said: read the file they "
                "point to, propose a patch, or finish with "
                'final_answer(answer="<what you found>").',
                period,
            )
        cycles = self._ping_pong_cycles()
        if cycles >= self.ping_pong_cycles:
            a, b = calls[-2], calls[-1]
            return LoopSignal(
                PING_PONG,
                f"You are alternating between {a.tool} and {b.tool} with the same arguments "
                f"({cycles} rounds) without progress. Decide from what you have seen, try "
                'something else, or finish with final_answer(answer="<your answer>").',
                cycles,
            )
        return None

    def _failing_tool(self) -> LoopSignal | None:
        """The last tool has failed `failure_hint_at` times in a row or more, with any
        arguments: hint, and stop at `failure_stop_at`."""
        last = self._calls[-1]
        if last.ok:
            return None
        failures = 0
        for call in reversed(self._recent(self.failure_stop_at)):
            if call.ok or call.tool != last.tool:
                break
            failures += 1
            if failures >= self.failure_stop_at:
                break
        if failures < self.failure_hint_at:
            return None
        if failures >= self.failure_stop_at:
            stop = LoopSignal(
                SAME_TOOL_FAILING,
                f"Stopping the run: {last.tool} failed {failures} times in a row, with "
                f"different arguments, and no other tool was tried in between. The last "
                f"error: {last.error}",
                failures,
                stop=True,
            )
            self._stop(stop)
            return stop
        return LoopSignal(
            SAME_TOOL_FAILING,
            f"{last.tool} failed {failures} times in a row. Changing its arguments again "
            "is unlikely to help: read the error's recovery_suggestion, use another tool "
            'to learn what you need, or finish with final_answer(answer="<your answer>").',
            failures,
        )

    def _recent(self, count: int) -> list[ToolCall]:
        """The last `count` calls of this attempt (fewer when it has made fewer)."""
        return self._calls[max(self._since, len(self._calls) - count) :]

    def _ping_pong_cycles(self) -> int:
        calls = self._recent(DETECTION_WINDOW)
        if len(calls) < 4:
            return 0
        last, before = calls[-1], calls[-3]
        if (last.tool, last.args_hash) != (before.tool, before.args_hash):
            return 0  # the common case: no A-B-A-B pattern, decided without a scan
        keys = [(c.tool, c.args_hash) for c in calls[-DETECTION_WINDOW:]]
        if keys[-1] == keys[-2]:
            return 0
        a, b = keys[-2], keys[-1]
        length = 0
        for i, key in enumerate(reversed(keys)):
            if key != (b if i % 2 == 0 else a):
                break
            length += 1
        return length // 2

    def _cycle_period(self) -> int:
        """The period (3 to MAX_CYCLE_PERIOD) of a round of calls just made twice, or 0."""
        keys = [(c.tool, c.args_hash) for c in self._recent(2 * MAX_CYCLE_PERIOD)]
        for period in range(3, MAX_CYCLE_PERIOD + 1):
            if len(keys) < 2 * period:
                break
            recent, before = keys[-period:], keys[-2 * period : -period]
            if recent == before and len(set(recent)) > 1:
                return period
        return 0

    def _signature(self, kind: str) -> str:
        last = self._calls[-1]
        if kind == REPEAT:
            return f"{last.tool}:{last.args_hash}"
        if kind == SAME_ERROR:
            return last.error or ""
        if kind == CYCLE:
            # The round's calls, whatever call it is read from: A-B-C and B-C-A are one loop.
            period = self._cycle_period()
            return "|".join(sorted({f"{c.tool}:{c.args_hash}" for c in self._calls[-period:]}))
        pair = sorted(f"{c.tool}:{c.args_hash}" for c in self._calls[-2:])
        return "|".join(pair)
