"""`lsp-agent phoenix` starts a real Phoenix server with its REST API and OTLP endpoint."""

from __future__ import annotations

import httpx


def test_phoenix_command_serves_the_rest_api(phoenix_server: str) -> None:
    projects = httpx.get(phoenix_server + "/v1/projects", timeout=10).json()
    assert any(p["name"] == "default" for p in projects["data"])


def test_phoenix_accepts_otlp_http_at_v1_traces(phoenix_server: str) -> None:
    reply = httpx.post(
        phoenix_server + "/v1/traces",
        content=b"",
        headers={"Content-Type": "application/x-protobuf"},
        timeout=10,
    )
    assert reply.status_code < 500
