"""`lsp-agent bench code`: what code mode's container costs (AGENT_TYPE=code).

- `container_start_ms`: a hardened code-runner container created, started and ready (the
  first code step of a job pays it once), median over `runs` containers;
- `empty_step_ms`: one code step that does nothing, sent and answered (every step pays it);
- `proxied_call_ms`: one tool call from the container to the host and back, with a host
  side that answers at once (the protocol's own cost per call), mean over 200 calls;
- `wrapped_read_file_ms`: one `read_file` call from the container through the host's
  `InstrumentedTool` (validation, policy, truncation, span, loop detection), mean over
  50 calls: what a real call costs the code beyond the tool's own work.
"""

from __future__ import annotations

import dataclasses
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from lsp_agent.benchmarks.runner import BenchError
from lsp_agent.settings import load_settings

CALLS = 200
WRAPPED_CALLS = 50


def _docker_client() -> tuple[Any, str]:
    from sandbox.docker import DockerEngine, EngineError, image_tag

    config = dataclasses.replace(load_settings()[0].sandbox_config(), backend="docker")
    try:
        engine = DockerEngine()
    except EngineError as exc:
        raise BenchError(f"bench code needs Docker: {exc}") from exc
    tag = image_tag(config)
    if not engine.has_image(tag):
        engine.close()
        raise BenchError(f"sandbox image {tag} is missing: run `lsp-agent sandbox build`")
    return engine, tag


def measure(runs: int = 5) -> dict[str, Any]:
    from lsp_agent.agent.code_mode.executor import SandboxedPythonExecutor
    from lsp_agent.benchmarks.agents import offline_context
    from lsp_agent.testing.calc_repo import write_calc_repo
    from sandbox.code import CodeSession, start_code_container
    from tools.registry import build_tools

    engine, tag = _docker_client()
    try:
        starts = []
        for _ in range(runs):
            started = time.perf_counter()
            start_code_container(engine.client, tag).close()
            starts.append(time.perf_counter() - started)
        session = CodeSession.docker(engine.client, tag)
        try:
            session.tools = [{"name": "echo", "inputs": ["text"]}]
            session.run_step("pass", lambda name, args: ("", False))  # starts the container
            empty = []
            for _ in range(max(runs, 20)):
                started = time.perf_counter()
                session.run_step("pass", lambda name, args: ("", False))
                empty.append(time.perf_counter() - started)
            started = time.perf_counter()
            session.run_step(
                f"for i in range({CALLS}):\n    echo(text=str(i))",
                lambda name, args: (str(args.get("text")), False),
            )
            proxied = (time.perf_counter() - started - statistics.median(empty)) / CALLS
        finally:
            session.close()
        with tempfile.TemporaryDirectory(prefix="lsp-agent-bench-") as scratch:
            repo = write_calc_repo(Path(scratch) / "repo")
            context = offline_context(repo)
            executor = SandboxedPythonExecutor(
                CodeSession.docker(engine.client, tag), max_chars=3000, max_lines=150
            )
            # Distinct line ranges: the loop detector would stop identical calls.
            executor.send_tools({tool.name: tool for tool in build_tools(context)})
            executor("pass")
            started = time.perf_counter()
            executor(
                f"for i in range({WRAPPED_CALLS}):\n"
                "    read_file(path='pkg/calc.py', start_line=1, end_line=i + 1)"
            )
            wrapped = (time.perf_counter() - started) / WRAPPED_CALLS
            executor.cleanup()
    finally:
        engine.close()
    return {
        "container_start_ms": statistics.median(starts) * 1000,
        "empty_step_ms": statistics.median(empty) * 1000,
        "proxied_call_ms": proxied * 1000,
        "wrapped_read_file_ms": wrapped * 1000,
    }
