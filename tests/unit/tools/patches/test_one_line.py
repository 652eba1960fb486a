"""Code written on one line, line breaks left out and indentation kept, is read as lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fake_sandbox import FakeSandbox
from tests.tool_context import tool_context
from tools.instrumented import InstrumentedTool
from tools.patch_tools import ProposePatch
from tools.workspace import DiskWorkspace

REPORT = (
    '"""Stock reports."""\n\n\n'
    "def total_stock(items):\n"
    '    """The total count over all items."""\n'
    "    total = 0\n"
    "    for item in items[1:]:\n"
    "        total += item.count\n"
    "    return total\n\n\n"
    "class Shelf:\n"
    "    def size(self, items):\n"
    "        return len(items) - 1\n"
)


def propose(repo: Path, old: str, new: str) -> tuple[dict[str, object], str]:
    (repo / "report.py").write_text(REPORT, encoding="utf-8")
    context = tool_context(DiskWorkspace(repo), sandbox_factory=FakeSandbox)
    tool = InstrumentedTool(ProposePatch(context), context)
    reply = json.loads(tool(path="report.py", old=old, new=new))
    stored = context.patches.all()
    return reply, stored[0].diff if stored else ""


def test_a_whole_function_written_on_one_line_replaces_the_function(tmp_path: Path) -> None:
    # Qwen2.5-Coder-1.5B's L8 fix, every run: the right function with its line breaks left out.
    new = (
        "def total_stock(items):    total = 0    for item in items:        "
        "total += item.count    return total"
    )
    reply, diff = propose(tmp_path, "def total_stock(items):", new)
    assert "patch_id" in reply, reply
    assert "runs of spaces between code were read as line breaks" in json.dumps(reply)
    assert "-    for item in items[1:]:\n" in diff
    assert "+    for item in items:\n" in diff
    assert '-    """The total count over all items."""' in diff  # replaced whole, no dead code
    assert "class Shelf" not in diff


def test_a_method_body_on_one_line_is_indented_from_the_edit_s_column(tmp_path: Path) -> None:
    reply, diff = propose(
        tmp_path, "return len(items) - 1", "count = len(items)        return count"
    )
    assert "patch_id" in reply, reply
    assert "+        count = len(items)\n+        return count\n" in diff


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("total = 0", 'total = "a  b"'),  # spaces inside a string: taken as written
        ("total = 0", "total  =  0 + 1"),  # parses as written: taken as written
    ],
)
def test_one_line_code_that_parses_or_spaces_in_strings_are_taken_as_written(
    tmp_path: Path, old: str, new: str
) -> None:
    reply, diff = propose(tmp_path, old, new)
    assert "patch_id" in reply, reply
    assert f"+    {new}\n" in diff
    assert "line breaks" not in json.dumps(reply)


def test_one_line_code_that_no_reading_makes_parse_is_still_refused(tmp_path: Path) -> None:
    reply, diff = propose(tmp_path, "total = 0", "total = (0    for x in")
    assert reply["error"] == "patch_invalid", reply
    assert diff == ""
