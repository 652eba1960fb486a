"""A job that ends with a passing fix proposed and not applied offers it for approval
(real tools, the real Docker sandbox's before/after check, a scripted model that never
calls apply_patch): approved, the file holds the fix; rejected, it does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_agent.settings import Settings
from tests.conftest import git_init
from tests.jobs import run_scripted
from tests.repo_samples import write
from tools.approval_gate import RejectAll

pytestmark = pytest.mark.docker

SETTINGS = Settings(sandbox_backend="docker", phoenix_enabled=False, agent_max_steps=6)
TASK = "The tests in calc_test.py fail. Fix the bug in calc.py."
STUB = "def sub(a, b):\n    return a + b\n"
FIXED = "def sub(a, b):\n    return a - b\n"
TURNS = [
    {"tool": "propose_patch", "arguments": {"path": "calc.py", "old": "a + b", "new": "a - b"}},
    {"final_answer": "Fixed sub()."},
    {"final_answer": "Fixed sub()."},  # the first answer is refused once: p1 is not applied
]


def repo(tmp_path: Path) -> Path:
    files = {
        "calc.py": STUB,
        "calc_test.py": "from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n",
    }
    return git_init(write(tmp_path / "repo", files))


def test_a_passing_fix_left_proposed_is_applied_when_approved(tmp_path: Path) -> None:
    root = repo(tmp_path)
    result, events, _ = run_scripted(root, TURNS, SETTINGS, TASK)
    assert result.status == "answered", result
    assert (root / "calc.py").read_text(encoding="utf-8") == FIXED
    assert result.patches == ["p1: calc.py [applied]"]
    assert result.facts[0].startswith("Applied p1 to calc.py; check passed"), result.facts
    assert "apply_patch" not in result.tools_used  # the model never called it
    notices = [e.message for e in events if e.kind == "notice"]
    assert any("offered for approval" in n for n in notices), notices


def test_a_rejected_offer_changes_no_byte(tmp_path: Path) -> None:
    root = repo(tmp_path)
    result, _, _ = run_scripted(root, TURNS, SETTINGS, TASK, approvals=RejectAll())
    assert (root / "calc.py").read_text(encoding="utf-8") == STUB
    assert result.patches[0].startswith("p1: calc.py [rejected]"), result.patches
    assert "No file was changed" in result.facts[0]
