"""`lsp-agent bench tools`: what the InstrumentedTool wrapper costs per call.

Measures a trivial tool called bare (as the agent calls a tool) and through the wrapper,
with span export off (the OpenTelemetry API's no-op tracer: PHOENIX_ENABLED=false) and on
(an SDK provider with the batch processor, as in a real session; a counting exporter stands
in for the network, whose encoding runs off the call path). Reports median microseconds
per call and the overhead over the bare call. Target: < 60 µs. Beside it, the cost of one
bare OpenTelemetry SDK span with the same number of attributes, measured in the same run:
the part of the overhead that is the SDK's.
"""

from __future__ import annotations

import itertools
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from lsp_agent.benchmarks.agents import offline_context
from tools.base import AgentTool
from tools.instrumented import InstrumentedTool

TARGET_US = 60.0
BATCH = 200


class EchoTool(AgentTool):
    name = "echo"
    description = "Returns its text."
    inputs = {"text": {"type": "string", "description": "Any text."}}

    def forward(self, text: str) -> str:
        return text


class CountingExporter(SpanExporter):
    """Stands in for the network: counts spans (the OTLP encoding is not on the call path)."""

    def __init__(self) -> None:
        self.exported = 0

    def export(self, spans: Any) -> SpanExportResult:
        self.exported += len(spans)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None


def _per_call_us(call: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(max(runs // BATCH, 5)):
        started = time.perf_counter()
        for _ in range(BATCH):
            call()
        samples.append((time.perf_counter() - started) / BATCH * 1e6)
    return statistics.median(samples)


def measure(runs: int = 20000) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        off = offline_context(root, tracer=trace.NoOpTracer())
        provider = TracerProvider()
        exporter = CountingExporter()
        provider.add_span_processor(BatchSpanProcessor(exporter, max_queue_size=100_000))
        on = offline_context(root, tracer=provider.get_tracer("bench"))
        bare = EchoTool(off)
        wrapped_off = InstrumentedTool(EchoTool(off), off)
        wrapped_on = InstrumentedTool(EchoTool(on), on)
        # Distinct arguments, as in a real run (identical calls would trip loop warnings).
        texts = itertools.cycle([f"hello {i}" for i in range(997)])
        for tool in (wrapped_off, wrapped_on):  # warm up
            for _ in range(500):
                tool(text=next(texts))
        # Called as the agent calls any tool (smolagents' Tool.__call__), wrapped or not.
        bare_us = _per_call_us(lambda: bare(text=next(texts)), runs)
        off_us = _per_call_us(lambda: wrapped_off(text=next(texts)), runs)
        on_us = _per_call_us(lambda: wrapped_on(text=next(texts)), runs)
        tracer = provider.get_tracer("bench")
        attributes = {f"attribute.{i}": "value" for i in range(9)}

        def sdk_span() -> None:
            with tracer.start_as_current_span("baseline") as span:
                span.set_attributes(attributes)

        span_us = _per_call_us(sdk_span, runs)
        provider.shutdown()
    return {
        "bare_us": bare_us,
        "wrapped_export_off_us": off_us,
        "wrapped_export_on_us": on_us,
        "overhead_export_off_us": off_us - bare_us,
        "overhead_export_on_us": on_us - bare_us,
        "sdk_span_9_attributes_us": span_us,
        "overhead_export_on_minus_sdk_span_us": on_us - bare_us - span_us,
        "target_us": TARGET_US,
        "spans_exported": float(exporter.exported),
    }
