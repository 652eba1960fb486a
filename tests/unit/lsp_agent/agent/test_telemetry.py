"""Telemetry set-up: resource, export to Phoenix, and forgiveness when Phoenix is down."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Sequence

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from lsp_agent.agent.telemetry import ForgivingExporter, build_tracer_provider
from lsp_agent.settings import Settings


class FailingExporter(SpanExporter):
    def __init__(self) -> None:
        self.calls = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.calls += 1
        raise ConnectionError("connection refused")

    def shutdown(self) -> None:
        return None


def test_provider_carries_service_and_phoenix_project() -> None:
    memory = InMemorySpanExporter()
    provider = build_tracer_provider(
        Settings(phoenix_project="proj").telemetry_config(), exporter=memory
    )
    with provider.get_tracer("t").start_as_current_span("s"):
        pass
    provider.force_flush()
    (span,) = memory.get_finished_spans()
    assert span.resource.attributes["service.name"] == "lsp-agent"
    assert span.resource.attributes["openinference.project.name"] == "proj"


def test_failed_export_warns_once_then_pauses(caplog: pytest.LogCaptureFixture) -> None:
    inner = FailingExporter()
    exporter = ForgivingExporter(inner, "http://127.0.0.1:9/v1/traces", retry_after_s=60)
    with caplog.at_level(logging.WARNING):
        results = [exporter.export([]) for _ in range(5)]
    assert results == [SpanExportResult.FAILURE] * 5
    assert inner.calls == 1, "after a failure, exports are skipped while paused"
    warnings = [r for r in caplog.records if "Phoenix is not reachable" in r.getMessage()]
    assert len(warnings) == 1
    assert "127.0.0.1:9" in warnings[0].getMessage()


def test_export_resumes_after_the_pause() -> None:
    inner = FailingExporter()
    exporter = ForgivingExporter(inner, "x", retry_after_s=0.0)
    exporter.export([])
    exporter.export([])
    assert inner.calls == 2


def run_python(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_export_off_installs_nothing() -> None:
    code = (
        "from opentelemetry import trace\n"
        "from lsp_agent.settings import Settings\n"
        "from lsp_agent.agent.telemetry import setup_telemetry\n"
        "config = Settings(phoenix_enabled=False).telemetry_config()\n"
        "print(setup_telemetry(config, instrument=False))\n"
        "print(type(trace.get_tracer_provider()).__name__)\n"
    )
    assert run_python(code).splitlines() == ["None", "ProxyTracerProvider"]


def test_phoenix_down_never_breaks_a_run() -> None:
    code = (
        "import socket\n"
        "s = socket.socket(); s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]; s.close()\n"
        "from opentelemetry import trace\n"
        "from lsp_agent.settings import Settings\n"
        "from lsp_agent.agent.telemetry import setup_telemetry\n"
        "settings = Settings(phoenix_endpoint=f'http://127.0.0.1:{port}/v1/traces')"
        ".telemetry_config()\n"
        "provider = setup_telemetry(settings, instrument=True)\n"
        "assert setup_telemetry(settings) is provider, 'idempotent'\n"
        "tracer = trace.get_tracer('t')\n"
        "for i in range(50):\n"
        "    with tracer.start_as_current_span(f's{i}'):\n"
        "        pass\n"
        "provider.force_flush()\n"
        "provider.shutdown()\n"
        "print('done')\n"
    )
    assert run_python(code) == "done"


def closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_endpoint_probe_tells_listening_from_closed() -> None:
    import socket

    from lsp_agent.agent.telemetry import endpoint_reachable

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert endpoint_reachable(f"http://127.0.0.1:{port}/v1/traces")
    assert not endpoint_reachable(f"http://127.0.0.1:{closed_port()}/v1/traces")
    assert not endpoint_reachable("not a url")


def test_phoenix_down_is_one_line_at_set_up_and_nothing_after() -> None:
    """Two set-ups, spans exported through the real OTLP exporter after the pause: one line,
    to on_notice (whose owner tells the user; without one it is logged), and none of
    OpenTelemetry's own export errors."""
    code = (
        "import json, logging, sys\n"
        "from opentelemetry import trace\n"
        "from lsp_agent.logging_setup import configure_logging\n"
        "from lsp_agent.settings import Settings\n"
        "from lsp_agent.agent import telemetry\n"
        "configure_logging('DEBUG')\n"
        "telemetry.RETRY_AFTER_S = 0.0  # retry at once: the OTLP exporter really runs\n"
        f"settings = Settings(phoenix_endpoint='http://127.0.0.1:{closed_port()}/v1/traces')"
        ".telemetry_config()\n"
        "notices = []\n"
        "provider = telemetry.setup_telemetry(settings, instrument=False, "
        "on_notice=notices.append)\n"
        "telemetry.setup_telemetry(settings, instrument=False, on_notice=notices.append)\n"
        "tracer = trace.get_tracer('t')\n"
        "for i in range(3):\n"
        "    with tracer.start_as_current_span(f's{i}'):\n"
        "        pass\n"
        "    provider.force_flush()\n"
        "provider.shutdown()\n"
        "print(json.dumps(notices))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    notices = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(notices) == 1, "the hook is told once"
    lines = [line for line in out.stderr.splitlines() if "opentelemetry" in line.lower()]
    assert lines == [], lines
    assert [line for line in out.stderr.splitlines() if "Phoenix" in line] == [], out.stderr
    assert "Traces are off" in notices[0] and "lsp-agent phoenix" in notices[0]
    assert "PHOENIX_ENABLED=false" in notices[0]
