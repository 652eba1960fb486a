"""`lsp-agent bench lsp`: the language server's latency and memory over stdio.

- `start_ms`: from spawning `lsp-agent serve` to the `initialize` answer (median of 3);
- `code_action_warmup_p99_ms`: code actions right after `initialized`, while the agent
  machinery warms up in the background (`warm_up_running_at_end` 1 = it still was);
- `code_action_idle_p50_ms` / `_p99_ms`: one `textDocument/codeAction` round trip at a
  time, no job running;
- `first_request_ms`: on a server up for 10 s, from `lspAgent.run` to the first request
  the model server receives;
- `code_action_busy_p50_ms` / `_p99_ms`: the same while an agent job runs — the real
  runtime against a scripted OpenAI-compatible endpoint on 127.0.0.1 that delays its
  answer, so the job is busy (waiting on the model) for the whole measurement;
- `did_change_ms_0_1mb` / `_2_6mb`: one incremental `didChange` (a one-character insert)
  in a document of that size, averaged over a burst;
- `code_action_typing_p99_ms`: code actions on the 2.6 MB document while a client types
  20 edits/s into it;
- `rss_idle_mb` / `rss_after_job_mb`: the server's resident memory after warm-up, and
  after a job.

Targets: code-action p99 <= 15 ms in every case; start < 1 s; first request <= 1 s;
one edit <= 1 ms at 2.6 MB.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from lsp_agent.benchmarks.stdio_client import StdioClient, rss_mb
from lsp_agent.testing.scripted_server import ScriptedOpenAIServer
from safety.host_env import user_environ

MODEL_DELAY_S = 60.0
SAMPLE = "def add(a, b):\n    total = a - b\n    return total\n" * 50
STARTS = 3
UP_BEFORE_RUN_S = 10.0
BURST = 200
TYPING_S = 5.0
TYPING_EDITS_PER_S = 20


def _initialize(client: StdioClient, root: Path) -> None:
    capabilities = {"window": {"workDoneProgress": True}}
    params = {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": capabilities}
    client.request("initialize", params)
    client.notify("initialized", {})


def _measure_typing(client: StdioClient, root: Path) -> dict[str, float]:
    small = SAMPLE * 40  # 0.1 MB
    large = SAMPLE * 1000  # 2.6 MB
    small_uri = (root / "small.py").resolve().as_uri()
    large_uri = (root / "large.py").resolve().as_uri()
    return {
        "did_change_ms_0_1mb": _edit_cost_ms(client, small_uri, small),
        "did_change_ms_2_6mb": _edit_cost_ms(client, large_uri, large),
        "code_action_typing_p99_ms": _typing_p99_ms(client, large_uri, large.count("\n")),
    }


def _status(client: StdioClient) -> dict[str, Any]:
    status = client.request(
        "workspace/executeCommand", {"command": "lspAgent.status", "arguments": []}
    )
    return status if isinstance(status, dict) else {}


def _percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _code_action(client: StdioClient, uri: str, line: int = 61) -> float:
    """One code action round trip, in ms."""
    rng = {"start": {"line": line, "character": 4}, "end": {"line": line, "character": 9}}
    params = {
        "textDocument": {"uri": uri},
        "range": rng,
        "context": {"diagnostics": [{"range": rng, "message": "bad sign"}]},
    }
    started = time.perf_counter()
    actions = client.request("textDocument/codeAction", params)
    elapsed = (time.perf_counter() - started) * 1000
    assert actions, "the server offered no code action"
    return elapsed


def _code_actions(client: StdioClient, uri: str, runs: int) -> list[float]:
    return [_code_action(client, uri) for _ in range(runs)]


def _open(client: StdioClient, uri: str, text: str) -> None:
    document = {"uri": uri, "languageId": "python", "version": 1, "text": text}
    client.notify("textDocument/didOpen", {"textDocument": document})


class _Typist:
    """Incremental one-character inserts into the middle of one open document."""

    def __init__(self, client: StdioClient, uri: str, lines: int) -> None:
        self.client, self.uri, self.line, self.version = client, uri, lines // 2, 1

    def type(self) -> None:
        self.version += 1
        position = {"line": self.line, "character": 0}
        change = {"range": {"start": position, "end": position}, "text": "x"}
        self.client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": self.uri, "version": self.version},
                "contentChanges": [change],
            },
        )


def _edit_cost_ms(client: StdioClient, uri: str, text: str) -> float:
    """Average cost of one incremental edit in a document holding `text`."""
    _open(client, uri, text)
    _code_action(client, uri)  # the open is processed
    typist = _Typist(client, uri, text.count("\n"))
    started = time.perf_counter()
    for _ in range(BURST):
        typist.type()
    _code_action(client, uri)  # answered after every edit before it was applied
    return (time.perf_counter() - started) * 1000 / BURST


def _typing_p99_ms(client: StdioClient, uri: str, lines: int) -> float:
    """Code actions every 250 ms while 20 edits/s go into the document at `uri`."""
    typist = _Typist(client, uri, lines)
    samples: list[float] = []
    interval = 1.0 / TYPING_EDITS_PER_S
    began = time.monotonic()
    edits = 0
    while time.monotonic() - began < TYPING_S:
        typist.type()
        edits += 1
        if edits % 5 == 0:
            samples.append(_code_action(client, uri, line=typist.line))
        time.sleep(max(0.0, began + edits * interval - time.monotonic()))
    return _percentile(samples, 0.99)


def measure(runs: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    with (
        tempfile.TemporaryDirectory(prefix="lsp-bench-") as tmp,
        ScriptedOpenAIServer([{"final_answer": "done", "delay_s": MODEL_DELAY_S}]) as model,
    ):
        root = Path(tmp)
        (root / "app.py").write_text(SAMPLE)
        env = {
            **user_environ(),
            "PHOENIX_ENABLED": "false",
            "SANDBOX_BACKEND": "none",
            "LOG_LEVEL": "WARNING",
            "MODEL_ID": "openai/bench",
            "MODEL_API_BASE": model.openai_base,
        }
        starts = []
        for _ in range(STARTS):
            began = time.perf_counter()
            client = StdioClient(env, root)
            _initialize(client, root)
            starts.append((time.perf_counter() - began) * 1000)
            client.close()
        figures["start_ms"] = statistics.median(starts)

        client = StdioClient(env, root)
        try:
            up_since = time.monotonic()
            _initialize(client, root)
            uri = (root / "app.py").resolve().as_uri()
            _open(client, uri, SAMPLE)
            warming = _code_actions(client, uri, runs)
            figures["code_action_warmup_p99_ms"] = _percentile(warming, 0.99)
            figures["warm_up_running_at_end"] = float(_status(client).get("warmUp") == "running")
            time.sleep(max(0.0, up_since + UP_BEFORE_RUN_S - time.monotonic()))
            idle = _code_actions(client, uri, runs)
            figures["code_action_idle_p50_ms"] = statistics.median(idle)
            figures["code_action_idle_p99_ms"] = _percentile(idle, 0.99)
            figures["rss_idle_mb"] = rss_mb(client.proc.pid)

            sent = time.perf_counter()
            started = client.request(
                "workspace/executeCommand",
                {"command": "lspAgent.run", "arguments": [{"task": "explain app.py", "uri": uri}]},
            )
            deadline = time.monotonic() + 120
            while not model.chat_requests and time.monotonic() < deadline:
                time.sleep(0.002)
            figures["first_request_ms"] = (time.perf_counter() - sent) * 1000
            busy = _code_actions(client, uri, runs)
            figures["code_action_busy_p50_ms"] = statistics.median(busy)
            figures["code_action_busy_p99_ms"] = _percentile(busy, 0.99)
            figures["job_busy_during_measure"] = float(bool(_status(client).get("jobs")))
            client.request(
                "workspace/executeCommand",
                {"command": "lspAgent.cancel", "arguments": [{"jobId": started["jobId"]}]},
            )
            while _status(client).get("job") and time.monotonic() < deadline:
                time.sleep(0.05)
            figures["rss_after_job_mb"] = rss_mb(client.proc.pid)

            figures.update(_measure_typing(client, root))
        finally:
            client.close()
    figures["runs"] = float(runs)
    return figures
