"""Tool-calling mode's stale replies: the call just made, or a file written as it is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
)

from lsp_agent.agent.stale_calls import stale_call
from tests.tool_context import tool_context
from tools.base import ToolContext
from tools.workspace import DiskWorkspace


def _reply(tool: str, **arguments: Any) -> ChatMessage:
    call = ChatMessageToolCall(
        id="call_1",
        type="function",
        function=ChatMessageToolCallFunction(name=tool, arguments=arguments),
    )
    return ChatMessage(role=MessageRole.ASSISTANT, content=None, tool_calls=[call])


def _context(tmp_path: Path) -> ToolContext:
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n", encoding="utf-8")
    return tool_context(DiskWorkspace(tmp_path))


def test_the_call_just_made_is_stale_another_is_not(tmp_path: Path) -> None:
    context = _context(tmp_path)
    assert stale_call(context, _reply("read_file", path="calc.py")) is None  # nothing yet
    context.state.record("read_file", {"path": "calc.py"}, "…")
    assert stale_call(context, _reply("read_file", path="calc.py")) == (
        "the reply repeats the last call, read_file, with the same arguments"
    )
    assert stale_call(context, _reply("read_file", path="calc.py", start_line=2)) is None
    assert stale_call(context, _reply("run_tests")) is None
    context.state.record("final_answer", {"answer": "done"}, "done")
    assert stale_call(context, _reply("final_answer", answer="done")) is None  # never stale


def test_a_file_written_as_it_is_or_as_a_failing_patch_has_it_is_stale(tmp_path: Path) -> None:
    context = _context(tmp_path)
    same = "def add(a, b):\n    return a - b"  # the missing last newline is the file's
    assert stale_call(context, _reply("propose_file", path="calc.py", content=same)) == (
        "the reply writes calc.py as it is"
    )
    wrong = "def add(a, b):\n    return a * b\n"
    assert stale_call(context, _reply("propose_file", path="calc.py", content=wrong)) is None
    _propose(context, wrong, ("test_calc.py::test_add",))
    assert stale_call(context, _reply("propose_file", path="calc.py", content=wrong)) == (
        "the reply writes calc.py as p1 does"
    )
    right = "def add(a, b):\n    return a + b\n"
    _propose(context, right, ())  # its tests pass: writing it again is not stale
    assert stale_call(context, _reply("propose_file", path="calc.py", content=right)) is None
    assert stale_call(context, _reply("propose_file", path="new.py", content=right)) is None
    context.patches.set_status("p2", "applied")
    (tmp_path / "calc.py").write_text(right, encoding="utf-8")
    assert stale_call(context, _reply("propose_file", path="calc.py", content=right)) is None


def test_a_search_replace_that_writes_a_failing_version_again_is_stale(tmp_path: Path) -> None:
    """The text a proposal gives is read as the tool reads it: propose_patch after a
    propose_file (scrabble-score), one file or several."""
    context = _context(tmp_path)
    patch = {"path": "calc.py", "old": "return a - b", "new": "return a * b"}
    assert stale_call(context, _reply("propose_patch", **patch)) is None
    _propose(context, "def add(a, b):\n    return a * b\n", ("test_calc.py::test_add",))
    assert stale_call(context, _reply("propose_patch", **patch)) == (
        "the reply writes calc.py as p1 does"
    )
    assert stale_call(context, _reply("propose_patch", **{**patch, "new": "return a + b"})) is None
    missing = {**patch, "old": "return b - a"}  # does not apply: its error says so
    assert stale_call(context, _reply("propose_patch", **missing)) is None
    diff = (
        "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n"
        " def add(a, b):\n-    return a - b\n+    return a * b\n"
    )
    assert stale_call(context, _reply("propose_patch_unified", diff=diff)) == (
        "the reply writes calc.py as p1 does"
    )
    function = {"path": "calc.py", "name": "add", "code": "def add(a, b):\n    return a * b"}
    assert stale_call(context, _reply("propose_function", **function)) == (
        "the reply writes calc.py as p1 does"
    )


def _propose(context: ToolContext, text: str, failing: tuple[str, ...]) -> None:
    from sandbox.protocol import PatchCheck
    from tools.patches import apply_whole_file

    result = apply_whole_file("calc.py", text, context.workspace, 200)
    check = PatchCheck(True, True, "", 0.1, still_failing=failing)
    context.patches.add(result.diff, result, check)
