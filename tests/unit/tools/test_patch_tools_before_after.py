"""What the model sees from a check: before/after lists and `cannot run`, not `failed`.

A real local sandbox (a throwaway copy, real pytest) behind the real patch tools.
"""

from __future__ import annotations

import json
from pathlib import Path

from safety.approvals import Outcome, Status
from sandbox.config import SandboxConfig
from sandbox.local_backend import LocalSandbox
from tests.conftest import git_init
from tests.repo_samples import write
from tests.tool_context import tool_context
from tools.approval_gate import ApprovalAsk
from tools.instrumented import InstrumentedTool
from tools.patch_tools import ProposePatch
from tools.workspace import DiskWorkspace


class Approve:
    def ask(self, ask: ApprovalAsk) -> Outcome:
        return Outcome("t", Status.APPROVED, by="test")


def propose(repo: Path, path: str, old: str, new: str) -> dict[str, object]:
    config = SandboxConfig(backend="local", timeout_s=120)
    with LocalSandbox(repo, config, approve=lambda argv, question: True) as box:
        context = tool_context(
            DiskWorkspace(repo), approvals=Approve(), sandbox_factory=lambda: box
        )
        tool = InstrumentedTool(ProposePatch(context), context)
        reply: dict[str, object] = json.loads(tool(path=path, old=old, new=new))
    return reply


def write_repo(root: Path, files: dict[str, str]) -> Path:
    return git_init(write(root, files))


def test_the_tool_result_names_fixed_and_still_failing_tests(tmp_path) -> None:
    repo = write_repo(
        tmp_path / "repo",
        {
            "calc.py": "def sub(a, b):\n    return a + b\n",
            "test_calc.py": "from calc import sub\n\n\ndef test_sub():\n"
            "    assert sub(5, 3) == 2\n",
            "test_io.py": "def test_slow():\n    assert False\n",
        },
    )
    reply = propose(repo, "calc.py", "a + b", "a - b")
    check = str(reply["check"])
    assert check.startswith(
        "applies: yes; check: passed [local] — fixed: test_calc.py::test_sub; broken: none; "
        "still failing: test_io.py::test_slow (failing before the patch) — "
    )


def test_a_missing_module_is_cannot_run_with_the_fix_not_failed(tmp_path) -> None:
    repo = write_repo(
        tmp_path / "repo",
        {
            "conf.py": "import not_installed_anywhere\n\n\ndef port():\n    return 1\n",
            "test_conf.py": "from conf import port\n\n\ndef test_port():\n    assert port() == 2\n",
        },
    )
    reply = propose(repo, "conf.py", "return 1", "return 2")
    check = str(reply["check"])
    assert "check: cannot run" in check and "failed" not in check
    assert "No module named 'not_installed_anywhere'" in check
    assert "lsp-agent sandbox prepare" in check
