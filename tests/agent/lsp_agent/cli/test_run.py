"""`lsp-agent run`: exit codes, --yes, no-TTY rejection, progress, bad usage."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

from tests.jobs import fix_script

FIX = fix_script("pkg/calc.py", "return a + b", "return b + a", "Swapped the operands.")


def lsp_agent_run(
    repo: Path,
    script: list[dict],
    *args: str,
    tmp_path: Path,
    env: dict[str, str] | None = None,
    merge_stderr: bool = False,
):
    """`lsp-agent run ARGS --repo REPO` with the scripted model playing `script`, no sandbox,
    no tracing unless `env` says so; `merge_stderr`: stderr in stdout, in order."""
    script_file = tmp_path / "script.json"
    script_file.write_text(json.dumps(script))
    env = {
        **os.environ,
        "MODEL_ID": f"scripted:{script_file}",
        "SANDBOX_BACKEND": "none",
        "PHOENIX_ENABLED": "false",
        "XDG_DATA_HOME": str(tmp_path / "data"),  # where `run --undo` finds the last run
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "lsp_agent", "run", *args, "--repo", str(repo)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
        text=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def test_yes_applies_and_exits_0(tmp_repo: Path, tmp_path: Path) -> None:
    out = lsp_agent_run(tmp_repo, FIX, "fix add", "--yes", tmp_path=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "step 3/25 apply_patch applied: p1" in out.stdout
    assert "answered" in out.stdout and "Swapped the operands." in out.stdout
    assert "lsp-agent: Applied p1 to pkg/calc.py; not checked (no sandbox)." in out.stdout
    assert (tmp_repo / "pkg" / "calc.py").read_text().endswith("return b + a\n")


def test_a_claimed_fix_without_a_patch_is_said_plainly(tmp_repo: Path, tmp_path: Path) -> None:
    # (refused once: the task asks for a fix and no patch was proposed; said again, it stands)
    claim = [FIX[0], *[{"final_answer": "I found and fixed the bug."}] * 2]
    out = lsp_agent_run(tmp_repo, claim, "fix add", "--yes", tmp_path=tmp_path)
    assert out.returncode == 0
    answer_at = out.stdout.index("I found and fixed the bug.")
    fact_at = out.stdout.index("lsp-agent: No file was changed: no patch was applied.")
    assert fact_at > answer_at, out.stdout


def test_without_a_terminal_or_yes_nothing_is_written(tmp_repo: Path, tmp_path: Path) -> None:
    before = (tmp_repo / "pkg" / "calc.py").read_bytes()
    out = lsp_agent_run(tmp_repo, FIX, "fix add", tmp_path=tmp_path)
    assert "no terminal to ask and no --yes" in out.stdout
    assert "patch p1: pkg/calc.py [rejected]" in out.stdout, out.stdout
    assert (tmp_repo / "pkg" / "calc.py").read_bytes() == before
    assert out.returncode == 0  # the scripted model still gives its final answer


def test_max_steps_exits_1(tmp_repo: Path, tmp_path: Path) -> None:
    loop = [{"tool": "list_files", "arguments": {"pattern": f"*.{i}"}} for i in range(10)]
    out = lsp_agent_run(tmp_repo, loop, "loop", "--max-steps", "3", tmp_path=tmp_path)
    assert out.returncode == 1
    assert "max_steps" in out.stdout
    counts = re.findall(r"step (\d+)/(\d+)", out.stdout)
    assert counts and all(int(step) <= int(limit) for step, limit in counts), out.stdout
    assert "step 3/3" in out.stdout and "step 4/3" not in out.stdout
    assert "Reached max steps" not in out.stdout
    assert "The step limit (3 steps) ended the run" in out.stdout
    assert "--max-steps" in out.stdout and "more precise task" in out.stdout


def test_unreachable_phoenix_is_one_line_before_the_first_step(
    tmp_repo: Path, tmp_path: Path
) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {
        "PHOENIX_ENABLED": "true",
        "PHOENIX_ENDPOINT": f"http://127.0.0.1:{port}/v1/traces",
        "PYTHONUNBUFFERED": "1",  # stdout and stderr in the order they were written
    }
    out = lsp_agent_run(
        tmp_repo, FIX, "fix add", "--yes", tmp_path=tmp_path, env=env, merge_stderr=True
    )
    assert out.returncode == 0, out.stdout
    lines = out.stdout.splitlines()
    traces = [i for i, line in enumerate(lines) if re.search(r"phoenix|trace|span", line, re.I)]
    assert len(traces) == 1, out.stdout
    line = lines[traces[0]]
    assert "Traces are off: Phoenix is not reachable" in line, line
    assert "lsp-agent phoenix" in line and "PHOENIX_ENABLED=false" in line
    first_step = next(i for i, text in enumerate(lines) if text.startswith("step 1/"))
    assert traces[0] < first_step, out.stdout


def test_bad_usage_exits_2(tmp_path: Path) -> None:
    out = lsp_agent_run(tmp_path / "missing", FIX, "x", tmp_path=tmp_path)
    assert out.returncode == 2 and "is not a directory" in out.stdout
    out = lsp_agent_run(tmp_path, FIX, tmp_path=tmp_path)
    assert out.returncode == 2 and "no TASK given" in out.stdout


def test_unreachable_model_says_where_and_how(tmp_repo: Path) -> None:
    env = {
        **os.environ,
        "MODEL_ID": "openai/x",
        "MODEL_API_BASE": "http://127.0.0.1:9/v1",
        "PHOENIX_ENABLED": "false",
    }
    out = subprocess.run(
        [sys.executable, "-m", "lsp_agent", "run", "x", "--repo", str(tmp_repo)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 1
    assert "http://127.0.0.1:9/v1" in out.stdout
