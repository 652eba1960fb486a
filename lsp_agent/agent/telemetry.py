"""OpenTelemetry set-up: a global TracerProvider exporting to Arize Phoenix over OTLP/HTTP.

Phoenix being down must never slow a run or break it: spans are exported by a batch
processor in a background thread, the exporter has a short timeout, and after a failed
export it stops trying for a while (one warning, not one per batch).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from lsp_agent import __version__
from lsp_agent.settings import Settings

log = logging.getLogger(__name__)

EXPORT_TIMEOUT_S = 2.0
RETRY_AFTER_S = 30.0


class ForgivingExporter(SpanExporter):
    """Wraps an exporter: a failure warns once and pauses exports for `retry_after_s`."""

    def __init__(
        self, inner: SpanExporter, endpoint: str, retry_after_s: float = RETRY_AFTER_S
    ) -> None:
        self._inner = inner
        self._endpoint = endpoint
        self._retry_after_s = retry_after_s
        self._paused_until = 0.0
        self._warned = False
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
    settings: Settings, exporter: SpanExporter | None = None
) -> TracerProvider:
    """A provider with our resource; exports to Phoenix when enabled (or to `exporter`)."""
    resource = Resource.create(
        {
            "service.name": "lsp-agent",
            "service.version": __version__,
            "openinference.project.name": settings.phoenix_project,
        }
    )
    provider = TracerProvider(resource=resource)
    if exporter is None and settings.phoenix_enabled:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = ForgivingExporter(
            OTLPSpanExporter(endpoint=settings.phoenix_endpoint, timeout=EXPORT_TIMEOUT_S),
            settings.phoenix_endpoint,
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
    settings: Settings, *, exporter: SpanExporter | None = None, instrument: bool = True
) -> TracerProvider | None:
    """Install the global TracerProvider (once per process) and the smolagents instrumentor.

    Returns the provider, or None when export is off and no exporter is given (the
    OpenTelemetry API then stays a no-op, costing nothing).
    """
    current = trace.get_tracer_provider()
    if isinstance(current, TracerProvider):
        provider = current
    else:
        if not settings.phoenix_enabled and exporter is None:
            return None
        provider = build_tracer_provider(settings, exporter)
        trace.set_tracer_provider(provider)
    if instrument:
        instrument_smolagents(provider)
    return provider
