"""Credentials in a file never reach the model or the trace: the real read_file tool through
the real wrapper, with spans recorded in memory."""

from __future__ import annotations

from pathlib import Path

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.tool_context import tool_context
from tools.files import ReadFile
from tools.instrumented import InstrumentedTool
from tools.workspace import DiskWorkspace

TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
AWS = "AKIAIOSFODNN7EXAMPLE"


def test_read_file_output_and_span_attributes_are_redacted(tmp_path: Path) -> None:
    (tmp_path / "settings.py").write_text(
        f'GITHUB = "{TOKEN}"\nAWS_ACCESS_KEY_ID = "{AWS}"\nDEBUG = True\n'
    )
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    context = tool_context(DiskWorkspace(tmp_path), tracer=provider.get_tracer("test"))
    tool = InstrumentedTool(ReadFile(context), context)
    observation = tool.call({"path": "settings.py"})
    assert TOKEN not in observation and AWS not in observation
    assert "[REDACTED]" in observation and "DEBUG = True" in observation
    (span,) = memory.get_finished_spans()
    attributes = " ".join(str(v) for v in (span.attributes or {}).values())
    assert TOKEN not in attributes and AWS not in attributes


def test_a_secret_in_the_arguments_is_redacted_in_the_span(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    context = tool_context(DiskWorkspace(tmp_path), tracer=provider.get_tracer("t"))
    InstrumentedTool(ReadFile(context), context).call({"path": f"{TOKEN}.txt"})
    (span,) = memory.get_finished_spans()
    assert TOKEN not in str(span.attributes)


def test_sandbox_span_attributes_are_redacted() -> None:
    from sandbox import tracing

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracing.use_tracer_provider(provider)
    try:
        with tracing.span("run", command=f"curl -H 'Authorization: token {TOKEN}' x") as span:
            tracing.set_attributes(span, output=f"AWS_ACCESS_KEY_ID={AWS}", exit_code=0)
    finally:
        tracing.use_tracer_provider(None)
    (recorded,) = memory.get_finished_spans()
    attributes = dict(recorded.attributes or {})
    assert TOKEN not in str(attributes) and AWS not in str(attributes)
    assert attributes["sandbox.exit_code"] == 0
