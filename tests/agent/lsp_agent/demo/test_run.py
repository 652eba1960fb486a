"""`lsp-agent demo`: the whole flow through the real server, told honestly.

Scripted models drive the exact path (fixed / not fixed); one run on the embedded model
checks that the main job really works with nothing else installed.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from lsp_agent.demo.run import (
    TINY_MODEL_TASK,
    USER_TASK,
    make_sample_repository,
    sample_tests_pass,
    task_for,
)

FIX = [
    {
        "tool": "propose_patch",
        "arguments": {"path": "calc.py", "old": "(len(values) + 1)", "new": "len(values)"},
    },
    {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
    {"final_answer": "average() now divides by len(values)."},
]
WRONG_FIX = [
    {
        "tool": "propose_patch",
        "arguments": {"path": "calc.py", "old": "(len(values) + 1)", "new": "(len(values) + 2)"},
    },
    {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
    {"final_answer": "Changed the divisor."},
]


def run_demo(
    *args: str, timeout: float = 240, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SANDBOX_BACKEND": "local", "PHOENIX_ENABLED": "false", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "lsp_agent", "demo", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def scripted(tmp_path: Path, turns: list[dict]) -> str:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(turns))
    return f"scripted:{script}"


def scripted_demo(tmp_path: Path, turns: list[dict[str, Any]], *, returncode: int) -> str:
    """The demo's output with the scripted model playing `turns`; it exits with `returncode`."""
    out = run_demo("--model", scripted(tmp_path, turns))
    assert out.returncode == returncode, out.stdout + out.stderr
    return out.stdout


def test_the_sample_repository_has_a_real_defect(tmp_path: Path) -> None:
    repo = make_sample_repository(tmp_path / "sample")
    assert not sample_tests_pass(repo)
    (repo / "calc.py").write_text(
        (repo / "calc.py").read_text().replace("(len(values) + 1)", "len(values)")
    )
    assert sample_tests_pass(repo)
    assert "calc.py" in TINY_MODEL_TASK and "propose_patch" in TINY_MODEL_TASK


def test_a_real_coding_model_gets_the_task_as_a_user_types_it() -> None:
    assert task_for("embedded") == TINY_MODEL_TASK
    for model in ("embedded:qwen2.5-coder-1.5b", "ollama_chat/qwen2.5-coder:7b"):
        assert task_for(model) == USER_TASK
    assert "propose_patch" not in USER_TASK and "test_calc.py" in USER_TASK


def test_a_fixing_model_goes_through_the_server_and_the_approval(tmp_path: Path) -> None:
    text = scripted_demo(tmp_path, FIX, returncode=0)
    assert "tests pass before the agent: False" in text
    assert "Language server started over stdio" in text
    assert "Agent: ask…" in text
    # local: the check runs on the host, before and after the patch, each asked first
    for ask in ("a1", "a2"):
        assert f"question: lsp-agent ({ask}): Run `python -m pytest -q" in text
    assert text.count("UNSANDBOXED on your machine? -> Run") == 2
    assert "question: lsp-agent (a3): Apply p1 to calc.py? -> Apply" in text
    assert "ended: answered after 3 steps" in text
    assert "tools: propose_patch, apply_patch, final_answer" in text
    assert "check: passed" in text and "[local]" in text
    assert "-    return sum(values) / (len(values) + 1)" in text
    assert "+    return sum(values) / len(values)" in text
    assert "Tests pass after the agent: True" in text
    assert "Result: FIXED" in text


def test_phoenix_down_is_one_line_before_the_first_step(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"PHOENIX_ENABLED": "true", "PHOENIX_ENDPOINT": f"http://127.0.0.1:{port}/v1/traces"}
    out = run_demo("--model", scripted(tmp_path, FIX), env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = (out.stdout + out.stderr).splitlines()
    # (case-sensitive: the script's path holds this test's lower-case name)
    traces = [i for i, line in enumerate(lines) if re.search(r"Phoenix|[Tt]race|span", line)]
    assert len(traces) == 1, out.stdout + out.stderr
    assert "Traces are off: Phoenix is not reachable" in lines[traces[0]]
    first_step = next(i for i, line in enumerate(lines) if "step 1/" in line)
    assert traces[0] < first_step, out.stdout


def test_a_model_that_does_not_fix_it_is_reported_plainly(tmp_path: Path) -> None:
    text = scripted_demo(tmp_path, WRONG_FIX, returncode=1)
    # The wrong fix breaks nothing; the test that failed before still fails, and says so
    # (the check's progress line is cut between words to fit the editor's progress message);
    # its apply_patch is refused (a no-fix to what the failing test calls never applies), so
    # nothing is written.
    assert "check: passed [local] — fixed: none; broken: none;" in text
    assert "apply_patch · p1 was not applied: test_average calls average(), which p1" in text
    assert "Change written by the editor after approval:\n   none" in text
    assert "NOT FIXED: the test still fails" in text
    assert "Tests pass after the agent: False" in text
    assert "Result: NOT FIXED" in text


def test_a_model_that_cannot_load_is_reported_plainly(tmp_path: Path) -> None:
    out = run_demo("--model", "embedded:/nonexistent/model.gguf")
    assert out.returncode == 1
    assert "ended: failed" in out.stdout
    assert "/nonexistent/model.gguf" in out.stdout
    assert "Result: NOT FIXED" in out.stdout


def test_the_embedded_model_fixes_the_defect_for_real() -> None:
    """The main job with nothing else installed (SmolLM2-135M in-process). Measured 10/10
    fixed over 10 runs; `lsp-agent bench demo` reports the rate."""
    out = run_demo()
    assert out.returncode == 0, out.stdout + out.stderr
    assert "(model: embedded)" in out.stdout
    assert "Result: FIXED" in out.stdout


def test_a_missing_docker_engine_is_said_plainly_with_the_command_that_fixes_it(
    tmp_path: Path,
) -> None:
    env = {"SANDBOX_BACKEND": "auto", "DOCKER_HOST": f"unix://{tmp_path}/no-docker.sock"}
    out = run_demo("--model", scripted(tmp_path, FIX), env=env)
    text = out.stdout
    assert out.returncode == 0, text + out.stderr
    (line,) = [line for line in text.splitlines() if line.strip().startswith("sandbox:")]
    assert "sandbox: unavailable." in line
    assert "`sudo systemctl start docker`" in line or "`sudo apt-get install docker.io`" in line
    assert "Connection aborted" not in text and "FileNotFoundError" not in text
    # said once, not nested, and never cut inside a word
    assert "check: unavailable (the diff applies" not in text
    for cut in re.findall(r"(\S*)…", text):
        assert cut == "" or any(word == cut for word in re.findall(r"\S+", text.replace("…", " ")))
    assert "Result: FIXED" in text
