"""An MCP server cannot flood lsp-agent's memory nor leave processes behind (issue 28, lows).

Through the real `lsp-agent run` (in a Python that reports its own peak memory at exit),
with the test MCP server: a 200 MB result becomes an error observation and the process's
peak memory stays far below the result's size; a process the server detached (double fork,
`setsid`) is gone when the job ends.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from lsp_agent.testing import ScriptedOpenAIServer
from tests.agent.scripted_run import run_against
from tests.mcp_servers.config import process_gone, write_config

RUN_AND_MEASURE = (
    "import resource, sys\n"
    "from lsp_agent.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "print('MAXRSS_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def run(repo: Path, server: ScriptedOpenAIServer, config: Path) -> subprocess.CompletedProcess[str]:
    return run_against(
        server,
        repo,
        "use the tools",
        "--yes",
        timeout=300,
        python_args=("-c", RUN_AND_MEASURE),
        MCP_CONFIG=str(config),
    )


def tool_messages(server: ScriptedOpenAIServer) -> list[str]:
    last = server.chat_requests[-1]["messages"]
    return [str(m.get("content")) for m in last if m.get("role") == "tool"]


def peak_mb(out: subprocess.CompletedProcess[str]) -> float:
    return int(out.stderr.split("MAXRSS_KB")[-1].split()[0]) / 1024


def test_a_huge_mcp_result_is_dropped_not_held(tmp_repo: Path, tmp_path: Path) -> None:
    config = write_config(tmp_path / "mcp.json", trust=True)
    small = [{"tool": "mcp_t_big", "arguments": {"megabytes": 1}}, {"final_answer": "done"}]
    with ScriptedOpenAIServer(small) as server:
        baseline = run(tmp_repo, server, config)
    assert baseline.returncode == 0, baseline.stderr[-3000:]
    script = [{"tool": "mcp_t_big", "arguments": {"megabytes": 200}}, {"final_answer": "done"}]
    with ScriptedOpenAIServer(script) as server:
        out = run(tmp_repo, server, config)
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    [observation] = tool_messages(server)
    assert "larger than 4194304 bytes and was dropped" in observation, observation[:500]
    print(f"peak RSS: {peak_mb(baseline):.0f} MB (1 MB result), {peak_mb(out):.0f} MB (200 MB)")
    assert peak_mb(out) < peak_mb(baseline) + 60, "the 200 MB result was held in memory"


def test_a_process_the_server_detached_ends_with_the_job(tmp_repo: Path, tmp_path: Path) -> None:
    config = write_config(tmp_path / "mcp.json", trust=True)
    script = [{"tool": "mcp_t_detach", "arguments": {}}, {"final_answer": "done"}]
    with ScriptedOpenAIServer(script) as server:
        out = run(tmp_repo, server, config)
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    [observation] = tool_messages(server)
    pid = int(observation.strip().split()[-1])
    deadline = time.monotonic() + 10
    while not process_gone(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if not process_gone(pid):
        os.kill(pid, 9)  # this test's own process, by pid
        raise AssertionError("a process the MCP server detached outlived the job")
