"""What every job of a process shares: tracing, set up once, and what model servers accept.

`services()` is one object per process. Its `capabilities` (`CapabilityMemory`) remember,
per model endpoint, which request parameters the server refused, so no job (of any front
end) learns that again. `start_tracing(config)` installs the OpenTelemetry provider on its
first call (later calls only add the smolagents instrumentation when asked) and keeps what
the user must be told about it (traces off: Phoenix is down) until a job takes it with
`take_notices()`: the first job after the set-up shows it, whoever set tracing up (the
language server's warm-up, or the job itself).
"""

from __future__ import annotations

import logging
import threading

from lsp_agent.agent.job_types import Notice
from lsp_agent.agent.telemetry import TelemetryConfig
from lsp_agent.models.capabilities import CapabilityMemory

log = logging.getLogger(__name__)


class JobServices:
    """The process's tracing and model-capability memory (see the module's docstring)."""

    def __init__(self) -> None:
        self.capabilities = CapabilityMemory()
        self._lock = threading.Lock()  # the pending notices
        self._setting_up = threading.Lock()  # one set-up at a time (warm-up and a job race)
        self._notices: list[Notice] = []

    def start_tracing(self, config: TelemetryConfig, *, instrument: bool = True) -> None:
        """Install tracing for this process (idempotent; never raises)."""
        from lsp_agent.agent.telemetry import setup_telemetry

        def keep(line: str) -> None:
            with self._lock:
                self._notices.append(Notice("tracing", line))

        with self._setting_up:
            try:
                setup_telemetry(config, instrument=instrument, on_notice=keep)
            except Exception:  # tracing must never stop a job
                log.exception("telemetry set-up failed; continuing without traces")

    def take_notices(self) -> list[Notice]:
        """What the next job should tell the user (each notice is taken once)."""
        with self._lock:
            notices, self._notices = self._notices, []
        return notices


_SERVICES = JobServices()


def services() -> JobServices:
    """This process's `JobServices`."""
    return _SERVICES
