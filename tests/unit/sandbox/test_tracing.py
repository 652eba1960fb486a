"""Every sandbox operation is a span named `sandbox.<operation>` with a few attributes."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from sandbox import open_sandbox, tracing
from sandbox.config import SandboxConfig
from tests.fake_engine import FakeEngine
from tests.repo_samples import CALC_DIFF as DIFF


@pytest.fixture(scope="module")
def exporter():
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracing.use_tracer_provider(provider)
    yield memory
    tracing.use_tracer_provider(None)


@pytest.fixture
def spans(exporter):
    exporter.clear()
    return exporter


def test_docker_session_spans(tmp_repo, spans):
    engine = FakeEngine()
    with open_sandbox(tmp_repo, SandboxConfig(timeout_s=5), engine=engine) as box:
        box.check_patch(DIFF, ["true"])
        box.run(["sh", "-c", "exit 3"])
        box.run(["sleep", "5"], timeout_s=1)
        box.run(["true"])
    names = [s.name for s in spans.get_finished_spans()]
    for name in (
        "sandbox.open",
        "sandbox.create_container",
        "sandbox.exec",
        "sandbox.check_patch",
        "sandbox.run",
        "sandbox.remove_container",
    ):
        assert name in names
    assert names.count("sandbox.create_container") == 2  # the first, and after the timeout
    by_name = {}
    for span in spans.get_finished_spans():
        by_name.setdefault(span.name, []).append(dict(span.attributes or {}))
    check = by_name["sandbox.check_patch"][0]
    assert check["sandbox.backend"] == "docker"
    assert check["sandbox.applies"] is True
    assert check["sandbox.check_status"] == "passed"
    assert "sandbox.duration_s" in check
    runs = by_name["sandbox.run"]
    assert runs[0]["sandbox.exit_code"] == 3
    assert runs[0]["sandbox.timed_out"] is False
    assert runs[1]["sandbox.timed_out"] is True
    assert len(by_name["sandbox.remove_container"]) == 2  # after the timeout, and at close


def test_spans_nest_under_the_callers_span(tmp_repo, spans):
    from sandbox.tracing import tracer

    with (
        tracer().start_as_current_span("tool_wrapped.propose_patch_unified") as parent,
        open_sandbox(tmp_repo, SandboxConfig(backend="none")) as box,
    ):
        box.check_patch(DIFF)
    check = next(s for s in spans.get_finished_spans() if s.name == "sandbox.check_patch")
    assert check.parent is not None
    assert check.parent.span_id == parent.get_span_context().span_id


def test_local_and_none_backends_trace_too(tmp_repo, spans):
    for backend in ("local", "none"):
        with open_sandbox(tmp_repo, SandboxConfig(backend=backend)) as box:
            box.check_patch(DIFF, [])
            box.run(["true"])
    backends = {
        (s.name, (s.attributes or {}).get("sandbox.backend")) for s in spans.get_finished_spans()
    }
    assert ("sandbox.check_patch", "local") in backends
    assert ("sandbox.run", "none") in backends
