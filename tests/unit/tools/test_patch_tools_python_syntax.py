"""A proposal that would leave a Python file unparsable is refused before its check."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fake_sandbox import FakeSandbox
from tests.tool_context import tool_context
from tools.instrumented import InstrumentedTool
from tools.patch_tools import ProposeFile, ProposePatch, ProposePatchUnified
from tools.workspace import DiskWorkspace

CALC = "pkg/calc.py"


def tools(repo: Path, box: FakeSandbox) -> tuple[dict[str, InstrumentedTool], object]:
    context = tool_context(DiskWorkspace(repo), sandbox_factory=lambda: box)
    classes = (ProposePatch, ProposePatchUnified, ProposeFile)
    return {cls.name: InstrumentedTool(cls(context), context) for cls in classes}, context


def test_a_patch_that_breaks_the_syntax_is_refused_with_the_line(tmp_repo: Path) -> None:
    box = FakeSandbox()
    offered, context = tools(tmp_repo, box)
    reply = json.loads(offered["propose_patch"](path=CALC, old="a + b", new="a + (b"))
    assert reply["error"] == "patch_invalid", reply
    assert "pkg/calc.py would not be valid Python" in reply["message"]
    assert "line 2: `return a + (b`" in reply["message"]
    assert "valid Python" in reply["recovery_suggestion"]
    assert context.patches.all() == [] and box.checks == []  # nothing stored or checked
    whole = json.loads(offered["propose_file"](path=CALC, content="def add(a, b)\n  return\n"))
    assert whole["error"] == "patch_invalid", whole


def test_a_valid_patch_a_broken_file_or_another_language_is_not_judged(tmp_repo: Path) -> None:
    (tmp_repo / "broken.py").write_text("def f(:\n    pass\n")
    (tmp_repo / "notes.txt").write_text("a\n")
    offered, context = tools(tmp_repo, FakeSandbox())
    assert "patch_id" in json.loads(offered["propose_patch"](path=CALC, old="a + b", new="b + a"))
    assert "patch_id" in json.loads(
        offered["propose_patch"](path="broken.py", old="def f(:", new="def f(:  # still")
    )
    assert "patch_id" in json.loads(offered["propose_patch"](path="notes.txt", old="a", new="(("))
    assert len(context.patches.all()) == 3
