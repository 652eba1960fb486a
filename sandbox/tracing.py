"""OpenTelemetry spans named `sandbox.<operation>` for every sandbox operation."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry import trace
from opentelemetry.trace import Span, TracerProvider

from safety.secret_redaction import redact_secrets

TRACER_NAME = "lsp_agent.sandbox"

_provider: TracerProvider | None = None

AttributeValue = str | bool | int | float


def use_tracer_provider(provider: TracerProvider | None) -> None:
    """Send sandbox spans to `provider` instead of the global one (None: back to global)."""
    global _provider  # noqa: PLW0603 - one process-wide override, like the global provider
    _provider = provider


def tracer() -> trace.Tracer:
    return trace.get_tracer(TRACER_NAME, tracer_provider=_provider)


@contextmanager
def span(operation: str, **attributes: AttributeValue | None) -> Iterator[Span]:
    """A span `sandbox.<operation>`; attribute `backend="docker"` becomes `sandbox.backend`."""
    clean = {
        f"sandbox.{key}": _redacted(value) for key, value in attributes.items() if value is not None
    }
    with tracer().start_as_current_span(f"sandbox.{operation}", attributes=clean) as current:
        yield current


def set_attributes(current: Span, **attributes: AttributeValue | None) -> None:
    for key, value in attributes.items():
        if value is not None:
            current.set_attribute(f"sandbox.{key}", _redacted(value))


def _redacted(value: AttributeValue) -> AttributeValue:
    """Credentials never reach a trace (command lines and outputs may hold them)."""
    return redact_secrets(value) if isinstance(value, str) else value
