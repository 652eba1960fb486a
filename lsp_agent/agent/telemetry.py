"""OpenTelemetry set-up: a global TracerProvider exporting to Arize Phoenix over OTLP/HTTP.

Phoenix being down must never slow a run or break it: spans are exported by a batch
processor in a background thread, the exporter has a short timeout, and after a failed
export it stops trying for a while. A user sees one line about it, once per process and
before the first step: set-up probes the endpoint (a TCP connect, at most half a second)
and says when traces are off. OpenTelemetry's own exporter log lines are silenced; the
exporter keeps retrying quietly, so traces resume when Phoenix comes up.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from lsp_agent import __version__

log = logging.getLogger(__name__)

EXPORT_TIMEOUT_S = 2.0
RETRY_AFTER_S = 30.0
PROBE_TIMEOUT_S = 0.5
# OpenTelemetry's exporters log an ERROR per failed batch ("Failed to export span batch due
# to timeout…") and a WARNING per retry; ForgivingExporter reports failures itself.
EXPORTER_LOGGERS = ("opentelemetry.exporter.otlp", "opentelemetry.sdk.trace.export")


@dataclass(frozen=True)
class TelemetryConfig:
    """Tracing's settings (PHOENIX_ENABLED, PHOENIX_ENDPOINT, PHOENIX_PROJECT); built by
    `Settings.telemetry_config()`."""

    enabled: bool
    endpoint: str
    project: str


def traces_off_line(endpoint: str) -> str:
    """The one line a user sees when Phoenix is enabled but not reachable."""
    return (
        f"Traces are off: Phoenix is not reachable at {endpoint}. Start it with "
        "`lsp-agent phoenix`, or set PHOENIX_ENABLED=false to hide this line."
    )


def endpoint_reachable(endpoint: str, timeout_s: float = PROBE_TIMEOUT_S) -> bool:
    """Whether something accepts TCP connections at the endpoint's host and port."""
    parts = urlsplit(endpoint)
    if not parts.hostname:
        return False
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        with socket.create_connection((parts.hostname, port), timeout=timeout_s):
            return True
    except (OSError, ValueError):
        return False


def silence_exporter_logs() -> None:
    """Keep OpenTelemetry's per-batch export errors off the user's screen."""
    for name in EXPORTER_LOGGERS:
        logging.getLogger(name).setLevel(logging.CRITICAL)


class ForgivingExporter(SpanExporter):
    """Wraps an exporter: a failure warns once and pauses exports for `retry_after_s`."""

    def __init__(
        self,
        inner: SpanExporter,
        endpoint: str,
        retry_after_s: float | None = None,
        *,
        warned: bool = False,
    ) -> None:
        self._inner = inner
        self._endpoint = endpoint
        self._retry_after_s = RETRY_AFTER_S if retry_after_s is None else retry_after_s
        # Already warned (set-up said traces are off): start paused, and stay quiet.
        self._paused_until = time.monotonic() + self._retry_after_s if warned else 0.0
        self._warned = warned
        self._lock = threading.Lock()
        self.dropped = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with self._lock:
            if time.monotonic() < self._paused_until:
                self.dropped += len(spans)
                return SpanExportResult.FAILURE
        try:
            result = self._inner.export(spans)
        except Exception as exc:
            log.debug("span export raised: %s", exc)
            result = SpanExportResult.FAILURE
        if result is SpanExportResult.FAILURE:
            with self._lock:
                self._paused_until = time.monotonic() + self._retry_after_s
                self.dropped += len(spans)
                if not self._warned:
                    self._warned = True
                    log.warning(
                        "Phoenix is not reachable at %s; traces are dropped (runs are not "
                        "affected). Start it with `lsp-agent phoenix` "
                        "or set PHOENIX_ENABLED=false.",
                        self._endpoint,
                    )
        return result

    def shutdown(self) -> None:
        self._inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self._inner.force_flush(timeout_millis)


def build_tracer_provider(
    config: TelemetryConfig, exporter: SpanExporter | None = None, *, reachable: bool = True
) -> TracerProvider:
    """A provider with our resource; exports to Phoenix when enabled (or to `exporter`).

    `reachable=False` says the user was already told Phoenix is down: the exporter starts
    paused and never warns again.
    """
    resource = Resource.create(
        {
            "service.name": "lsp-agent",
            "service.version": __version__,
            "openinference.project.name": config.project,
        }
    )
    provider = TracerProvider(resource=resource)
    if exporter is None and config.enabled:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        silence_exporter_logs()
        exporter = ForgivingExporter(
            OTLPSpanExporter(endpoint=config.endpoint, timeout=EXPORT_TIMEOUT_S),
            config.endpoint,
            warned=not reachable,
        )
    if exporter is not None:
        provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=500))
    return provider


def instrument_smolagents(provider: TracerProvider) -> None:
    """OpenInference spans for the agent, its LLM calls and tools (idempotent)."""
    from openinference.instrumentation.smolagents import SmolagentsInstrumentor

    instrumentor = SmolagentsInstrumentor()
    if not instrumentor.is_instrumented_by_opentelemetry:
        instrumentor.instrument(tracer_provider=provider)


def setup_telemetry(
    config: TelemetryConfig,
    *,
    exporter: SpanExporter | None = None,
    instrument: bool = True,
    on_notice: Callable[[str], None] | None = None,
) -> TracerProvider | None:
    """Install the global TracerProvider (once per process) and the smolagents instrumentor.

    Returns the provider, or None when export is off and no exporter is given (the
    OpenTelemetry API then stays a no-op, costing nothing). When Phoenix is enabled but
    not reachable, the install passes one line (`traces_off_line`) to `on_notice`, whose
    owner tells the user (or logs it as a warning without one); later calls find the
    provider installed and say nothing.
    """
    current = trace.get_tracer_provider()
    if isinstance(current, TracerProvider):
        provider = current
    else:
        if not config.enabled and exporter is None:
            return None
        reachable = exporter is not None or endpoint_reachable(config.endpoint)
        provider = build_tracer_provider(config, exporter, reachable=reachable)
        trace.set_tracer_provider(provider)
        if not reachable:
            line = traces_off_line(config.endpoint)
            if on_notice is not None:
                on_notice(line)
            else:
                log.warning("%s", line)
    if instrument:
        instrument_smolagents(provider)
    return provider
