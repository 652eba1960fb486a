"""One job's code runner: run a step's code in its container, serving its tool calls.

`CodeSession.run_step(code, serve_call)` sends the code to the runner and answers each tool
call the code makes with `serve_call(name, arguments)` (the host's wrapped tool), until the
step ends. The container starts on the first step (lazily: Docker is not free) and lives
for the job, so variables persist between steps. The step's deadline counts the time the
code runs in the container, not the time the host spends on its tool calls (an approval can
take minutes). When the deadline passes, the container dies (out of memory, killed) or the
job is cancelled, the container is removed and the step says so: the next step starts a
fresh one, with no variables.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sandbox import tracing
from sandbox.code.container import CodeChannel, start_code_container
from sandbox.docker import ChannelBroken

POLL_S = 0.2  # how often a waiting step looks at the cancel flag
DEFAULT_STEP_TIMEOUT_S = 30.0

# serve_call(name, arguments) -> (text, is_error)
ServeCall = Callable[[str, dict[str, Any]], tuple[str, bool]]
StartChannel = Callable[[], CodeChannel]


@dataclass
class StepOutcome:
    """How one step's code ended. `error` None means it ran to its end (or final_answer)."""

    output: str | None = None
    logs: str = ""
    final: bool = False
    error: str | None = None
    restarted: bool = False  # the container was replaced: the code's variables are gone
    calls: list[str] = field(default_factory=list)  # tools the code called, in order


class CodeSession:
    """The code runner of one job (thread-compatible: one step at a time)."""

    def __init__(
        self,
        start: StartChannel,
        *,
        step_timeout_s: float = DEFAULT_STEP_TIMEOUT_S,
        cancel: threading.Event | None = None,
    ) -> None:
        self._start = start
        self.step_timeout_s = step_timeout_s
        self.cancel = cancel or threading.Event()
        self.tools: list[dict[str, Any]] = []
        self.variables: dict[str, Any] = {}
        self._channel: CodeChannel | None = None
        self._steps = 0
        self.start_seconds: list[float] = []  # how long each container took to start
        self.on_close: Callable[[], None] | None = None  # after the last container is gone

    @classmethod
    def docker(cls, client: Any, image: str, **kwargs: Any) -> CodeSession:
        return cls(lambda: start_code_container(client, image), **kwargs)

    @property
    def running(self) -> bool:
        return self._channel is not None

    def run_step(self, code: str, serve_call: ServeCall) -> StepOutcome:
        """Run `code`; never raises for what the code does (its failure is the outcome)."""
        self._steps += 1
        step = self._steps
        outcome = StepOutcome()
        with tracing.span("code_run", step=step, code_chars=len(code)) as span:
            channel = self._channel or self._open()
            try:
                channel.send({"run": code, "step": step})
                self._serve(channel, step, serve_call, outcome)
            except ChannelBroken as exc:
                self._lose(outcome, f"The code's container went away ({exc}).")
            tracing.set_attributes(
                span,
                calls=len(outcome.calls),
                final=outcome.final,
                error=(outcome.error or "")[:200] or None,
                restarted=outcome.restarted,
            )
        return outcome

    def close(self) -> None:
        """End of the job: remove the container (idempotent)."""
        self._drop_container()
        if self.on_close is not None:
            on_close, self.on_close = self.on_close, None
            on_close()

    def _drop_container(self) -> None:
        if self._channel is not None:
            self._channel.close()
            self._channel = None

    # ---- internals ---------------------------------------------------------------------
    def _open(self) -> CodeChannel:
        started = time.monotonic()
        channel = self._start()
        self.start_seconds.append(time.monotonic() - started)
        channel.send({"tools": self.tools})
        if self.variables:
            channel.send({"variables": self.variables})
        self._channel = channel
        return channel

    def _serve(
        self, channel: CodeChannel, step: int, serve_call: ServeCall, outcome: StepOutcome
    ) -> None:
        budget = self.step_timeout_s  # container time left for this step
        while True:
            if self.cancel.is_set():
                self._lose(outcome, "The job was cancelled: the code was stopped.")
                return
            waited = time.monotonic()
            try:
                message = channel.receive(min(POLL_S, max(budget, 0.0)))
            except ChannelBroken as exc:
                self._lose(
                    outcome,
                    "The code's container ended during this step (out of memory, or the "
                    f"code ended its runner: {exc}).",
                )
                return
            budget -= time.monotonic() - waited
            if message is None:
                if budget <= 0:
                    self._lose(
                        outcome,
                        f"The code ran longer than {self.step_timeout_s:g} s (an endless "
                        "loop?) and was stopped.",
                    )
                    return
                continue
            if message.get("step") != step:
                continue  # a late line of an earlier step
            if message.get("done"):
                outcome.output = _text_or_none(message.get("output"))
                outcome.logs = str(message.get("logs") or "")
                outcome.final = bool(message.get("final"))
                outcome.error = _text_or_none(message.get("error"))
                return
            if "call" in message:
                self._answer_call(channel, message, serve_call, outcome)

    def _answer_call(
        self,
        channel: CodeChannel,
        message: dict[str, Any],
        serve_call: ServeCall,
        outcome: StepOutcome,
    ) -> None:
        name = str(message.get("call"))
        arguments = message.get("arguments")
        if not isinstance(arguments, dict):
            arguments = {}
        outcome.calls.append(name)
        try:
            text, is_error = serve_call(name, arguments)
        except BaseException:  # a bug on the host: the runner would wait for ever
            self._drop_container()
            raise
        channel.send({"id": message.get("id"), "error" if is_error else "result": text})

    def _lose(self, outcome: StepOutcome, why: str) -> None:
        self._drop_container()
        outcome.restarted = True
        outcome.error = (
            f"{why} Its variables are lost; the next step starts with none (call the tools "
            "again for what you need)."
        )


def _text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)
