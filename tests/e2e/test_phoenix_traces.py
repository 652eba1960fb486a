"""Spans from a real run reach a real Phoenix server, nested under the agent's spans."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

SCRIPT = Path(__file__).parent / "scripts" / "traced_run.py"


def fetch_spans(base: str, project: str, want: int, timeout_s: float = 60) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout_s
    spans: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        reply = httpx.get(f"{base}/v1/projects/{project}/spans", params={"limit": 1000}, timeout=10)
        if reply.status_code == 200:
            spans = reply.json()["data"]
            if sum(s["name"].startswith("tool_wrapped.") for s in spans) >= want:
                return spans
        time.sleep(1)
    return spans


def test_tool_spans_arrive_in_phoenix_nested_under_the_agent(
    phoenix_server: str, tmp_repo: Path
) -> None:
    project = f"lsp-agent-e2e-{uuid.uuid4().hex[:8]}"
    run = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_repo), f"{phoenix_server}/v1/traces", project],
        capture_output=True,
        text=True,
        timeout=180,
        env=os.environ.copy(),
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "a + b" in run.stdout

    spans = fetch_spans(phoenix_server, project, want=2)
    by_id = {s["context"]["span_id"]: s for s in spans}
    wrapped = {s["name"]: s for s in spans if s["name"].startswith("tool_wrapped.")}
    assert set(wrapped) >= {"tool_wrapped.read_file", "tool_wrapped.run_cmd"}

    assert wrapped["tool_wrapped.read_file"]["span_kind"] == "TOOL"
    flat = _flatten(wrapped["tool_wrapped.read_file"]["attributes"])
    assert flat["tool.name"] == "read_file"
    assert "pkg/calc.py" in flat["input.value"] and "return a + b" in flat["output.value"]
    for key in (
        "lsp_agent.tool.args_hash",
        "lsp_agent.tool.input_chars",
        "lsp_agent.tool.output_chars",
        "lsp_agent.tool.duration_ms",
        "lsp_agent.tool.truncated",
    ):
        assert key in flat, key

    denied = _flatten(wrapped["tool_wrapped.run_cmd"]["attributes"])
    assert denied["lsp_agent.policy.verdict"] == "REQUIRE_APPROVAL"
    assert denied["lsp_agent.policy.rule"]
    assert denied["lsp_agent.approval.outcome"] == "rejected"
    assert denied["lsp_agent.error.type"] == "approval_rejected"
    assert denied["lsp_agent.error.recovery_hint"]

    kinds = []
    node = wrapped["tool_wrapped.read_file"]
    while node.get("parent_id") in by_id:
        node = by_id[node["parent_id"]]
        kinds.append(node["span_kind"])
    assert "AGENT" in kinds or "CHAIN" in kinds, f"ancestors: {kinds}"


def _flatten(attributes: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in attributes.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = value
    return flat
