"""`lsp-agent run` in code mode on the real Docker engine, the model scripted: one code step
reads a file, proposes a patch built from what it read and applies it; the file changes on
the host only through the wrapped tools (and only when approved)."""

from __future__ import annotations

import pytest

from tests.e2e.code_mode import code_turn, run_code_mode

pytestmark = pytest.mark.docker

FIX_IN_ONE_STEP = code_turn(
    """
import re
text = read_file(path="pkg/calc.py")
old = re.search(r"return a \\+ b", text).group(0)
patch = propose_patch(path="pkg/calc.py", old=old, new=old.replace("a + b", "b + a"))
print("proposed", patch["patch_id"])
print(apply_patch(patch_id=patch["patch_id"]))
""",
    "Read calc.py, then patch the line I find in it.",
)
ANSWER = code_turn('final_answer("Swapped the operands of add().")')


def test_one_code_step_reads_proposes_and_applies(tmp_repo, tmp_path, sandbox_image):
    out = run_code_mode(tmp_repo, [FIX_IN_ONE_STEP, ANSWER], tmp_path, task="fix add")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "step 1/25 read_file, propose_patch, apply_patch applied: p1" in out.stdout, out.stdout
    assert "answered after 2 steps" in out.stdout, out.stdout
    assert "patch p1: pkg/calc.py [applied]" in out.stdout
    assert "Swapped the operands of add()." in out.stdout
    assert (tmp_repo / "pkg" / "calc.py").read_text().endswith("return b + a\n")


def test_a_refused_apply_raises_in_the_code_and_writes_nothing(tmp_repo, tmp_path, sandbox_image):
    before = (tmp_repo / "pkg" / "calc.py").read_bytes()
    out = run_code_mode(tmp_repo, [FIX_IN_ONE_STEP, ANSWER], tmp_path, task="fix add", yes=False)
    assert "ToolCallError" in out.stdout and "approval_rejected" in out.stdout, out.stdout
    assert "patch p1: pkg/calc.py [rejected]" in out.stdout, out.stdout
    assert (tmp_repo / "pkg" / "calc.py").read_bytes() == before
    assert out.returncode == 0, out.stdout  # the run went on to its final answer


def test_code_mode_plans_first_and_revises_every_step(tmp_repo, tmp_path, sandbox_image):
    first_plan = {"text": "1. Read calc.py and patch add().\n2. Answer.\n<end_plan>"}
    revised = {"text": "1. Say what was changed.\n<end_plan>"}
    out = run_code_mode(
        tmp_repo,
        [first_plan, FIX_IN_ONE_STEP, revised, ANSWER],
        tmp_path,
        task="fix add",
        env={"AGENT_PLANNING_INTERVAL": "1"},
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "plan (before step 1):" in out.stdout and "Read calc.py and patch add()" in out.stdout
    assert "plan (before step 2):" in out.stdout and "Say what was changed" in out.stdout
    assert "answered after 2 steps" in out.stdout, out.stdout
    assert (tmp_repo / "pkg" / "calc.py").read_text().endswith("return b + a\n")
