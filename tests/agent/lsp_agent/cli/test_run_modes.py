"""`lsp-agent run` with planning (AGENT_PLANNING_INTERVAL) and the explorer (AGENT_SUBAGENTS)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from tests.agent.lsp_agent.cli.test_run import FIX, lsp_agent_run

PLAN = "1. Read pkg/calc.py.\n2. Swap the operands.\n3. Apply the patch."
REVISED = "1. Apply p1.\n2. Answer."


def _run_yes(
    repo: Path, tmp_path: Path, script: list[dict[str, Any]], task: str, **env: str
) -> subprocess.CompletedProcess[str]:
    """`lsp-agent run TASK --yes` with `env` added; it must end with exit code 0."""
    out = lsp_agent_run(repo, script, task, "--yes", tmp_path=tmp_path, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    return out


def test_run_prints_the_plan_and_its_revision(tmp_repo: Path, tmp_path: Path) -> None:
    script = [{"text": PLAN}, *FIX[:2], {"text": REVISED}, *FIX[2:]]
    out = _run_yes(tmp_repo, tmp_path, script, "fix add", AGENT_PLANNING_INTERVAL="2")
    assert f"plan (before step 1):\n{PLAN}" in out.stdout
    assert f"plan (before step 3):\n{REVISED}" in out.stdout
    assert "step 3/25 apply_patch applied: p1" in out.stdout
    assert "answered after 4 steps" in out.stdout
    assert (tmp_repo / "pkg" / "calc.py").read_text().endswith("return b + a\n")


def test_run_with_the_explorer_stays_read_only(tmp_repo: Path, tmp_path: Path) -> None:
    before = (tmp_repo / "pkg" / "calc.py").read_bytes()
    script = [
        {"tool": "explorer", "arguments": {"task": "What does add() return?"}},
        {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
        {
            "tool": "propose_patch",
            "arguments": {"path": "pkg/calc.py", "old": "return a + b", "new": "return 0"},
        },
        {"tool": "read_file", "arguments": {"path": "pkg/calc.py"}},
        {"final_answer": "add() returns a + b."},
        {"final_answer": "add() returns a + b, says the explorer."},
    ]
    out = _run_yes(tmp_repo, tmp_path, script, "what does add return", AGENT_SUBAGENTS="explorer")
    assert "explorer: running read_file" in out.stdout
    assert "explorer step 3/8 · read_file" in out.stdout
    assert "step 1/25 explorer Explorer's answer" in out.stdout
    assert "says the explorer" in out.stdout
    assert (tmp_repo / "pkg" / "calc.py").read_bytes() == before
    assert "patch p1" not in out.stdout  # nothing was ever proposed


def test_an_untrusted_workspace_env_cannot_offer_the_explorer(
    tmp_repo: Path, tmp_path: Path
) -> None:
    """AGENT_SUBAGENTS is a user-scope key: the repository's own `.env` cannot set it."""
    assert "AGENT_SUBAGENTS" not in os.environ
    (tmp_repo / ".env").write_text("AGENT_SUBAGENTS=explorer\nAGENT_PLANNING_INTERVAL=1\n")
    script = [
        {"text": "1. Ask the explorer."},  # planning (any scope) does apply
        {"tool": "explorer", "arguments": {"task": "What does add() return?"}},
        {"final_answer": "I looked myself: add() returns a + b."},
    ]
    out = lsp_agent_run(
        tmp_repo,
        script,
        "what does add return",
        tmp_path=tmp_path,
        env={
            "XDG_CONFIG_HOME": str(tmp_path / "config"),  # no user config
            "XDG_DATA_HOME": str(tmp_path / "data"),  # no trusted .env files
        },
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "plan (before step 1):" in out.stdout
    assert "there is no tool `explorer`" in out.stdout
    assert "explorer: running" not in out.stdout and "explorer step" not in out.stdout
