"""`lsp-agent run --undo`: the last run's writes put back, and nothing else touched."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from tests.agent.lsp_agent.cli.test_run import FIX, lsp_agent_run

CALC = Path("pkg") / "calc.py"
LONG = Path("pkg") / "long.py"
LINES = "".join(f"value_{n} = {n}\n" for n in range(1, 21))
NEW_FILE = "--- /dev/null\n+++ b/pkg/notes.txt\n@@ -0,0 +1 @@\n+notes\n"
SWAP: list[dict[str, Any]] = [dict(turn) for turn in FIX if isinstance(turn, dict)]
TWO_FILES: list[dict[str, Any]] = [
    {"tool": "propose_patch", "arguments": {"path": str(LONG), "old": "= 3\n", "new": "= 33\n"}},
    {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
    {"tool": "propose_patch_unified", "arguments": {"diff": NEW_FILE}},
    {"tool": "apply_patch", "arguments": {"patch_id": "p2"}},
    {"final_answer": "Swapped the operands and wrote notes."},
]


def git_status(repo: Path) -> str:
    out = subprocess.run(
        ["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True, check=True
    )
    return out.stdout


def test_undo_restores_the_runs_files_and_keeps_other_changes(
    tmp_repo: Path, tmp_path: Path
) -> None:
    (tmp_repo / LONG).write_text(LINES)
    subprocess.run(["git", "add", str(LONG)], cwd=tmp_repo, check=True)
    (tmp_repo / "README.md").write_text("my own uncommitted change\n")  # unrelated
    run = lsp_agent_run(tmp_repo, TWO_FILES, "fix add", "--yes", tmp_path=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "changed pkg/long.py, pkg/notes.txt (lsp-agent run --undo puts it back)" in run.stdout
    assert "value_3 = 33\n" in (tmp_repo / LONG).read_text()
    mine = (tmp_repo / LONG).read_text().replace("= 18\n", "= 18  # mine\n")
    (tmp_repo / LONG).write_text(mine)  # an edit after the run, away from its lines

    undo = lsp_agent_run(tmp_repo, [], "--undo", tmp_path=tmp_path)

    assert undo.returncode == 0, undo.stdout + undo.stderr
    assert "restored pkg/long.py" in undo.stdout and "restored pkg/notes.txt" in undo.stdout
    assert (tmp_repo / LONG).read_text() == LINES.replace("= 18\n", "= 18  # mine\n")
    assert not (tmp_repo / "pkg" / "notes.txt").exists()
    assert (tmp_repo / "README.md").read_text() == "my own uncommitted change\n"
    assert sorted(git_status(tmp_repo).splitlines()) == ["?? README.md", "AM pkg/long.py"]
    again = lsp_agent_run(tmp_repo, [], "--undo", tmp_path=tmp_path)
    assert again.returncode == 0 and "was undone already" in again.stdout


def test_a_file_edited_where_the_run_wrote_is_left_and_named(
    tmp_repo: Path, tmp_path: Path
) -> None:
    run = lsp_agent_run(tmp_repo, SWAP, "fix add", "--yes", tmp_path=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    mine = (tmp_repo / CALC).read_text().replace("return b + a", "return int(b + a)")
    (tmp_repo / CALC).write_text(mine)

    undo = lsp_agent_run(tmp_repo, [], "--undo", tmp_path=tmp_path)

    assert undo.returncode == 1
    assert "left pkg/calc.py as it is: the lines the job wrote were edited since" in undo.stdout
    assert (tmp_repo / CALC).read_text() == mine


def test_undo_without_a_run_and_with_a_task_is_refused(tmp_repo: Path, tmp_path: Path) -> None:
    nothing = lsp_agent_run(tmp_repo, [], "--undo", tmp_path=tmp_path)
    assert nothing.returncode == 1 and "no run of lsp-agent in" in nothing.stdout
    both = lsp_agent_run(tmp_repo, [], "a task", "--undo", tmp_path=tmp_path)
    assert both.returncode == 2 and "--undo takes no TASK" in both.stdout
