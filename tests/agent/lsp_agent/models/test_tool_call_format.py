"""The tool-call schema's path-bound values (`tool_call_format.spelled_out`): `old` is one
of the lines of a file the job works on, free for the other files; the calls that name no
path are left as they are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from smolagents import FinalAnswerTool

from lsp_agent.agent.runtime import argument_choices, job_context
from lsp_agent.models.embedded.tool_grammar import call_text
from lsp_agent.models.tool_call_format import FOCUS_KEY, tool_call_response_format
from lsp_agent.settings import Settings
from tests.jobs import disk_job
from tools.registry import build_tools

TASK = "average() in calc.py divides by the wrong number. Fix it."
CALC = "def average(values):\n    return sum(values) / (len(values) + 1)\n"


def schema_for(repo: Path, read: tuple[str, ...] = ()) -> dict[str, Any]:
    (repo / "calc.py").write_text(CALC, encoding="utf-8")
    (repo / "notes.py").write_text("NOTE = 1\n", encoding="utf-8")
    (repo / "other.py").write_text("X = 2\n", encoding="utf-8")
    context = job_context(disk_job(TASK, repo, Settings(sandbox_backend="none")))
    context.task_files = ("calc.py",)
    context.seen_paths.update(read)
    choices = argument_choices(context, TASK)()
    tools = [t for t in build_tools(context) if t.name in ("propose_patch", "read_file")]
    response_format = tool_call_response_format([*tools, FinalAnswerTool()], choices)
    schema: dict[str, Any] = response_format["json_schema"]["schema"]
    assert choices[FOCUS_KEY] == ["calc.py", *read]
    return schema


def valid(schema: dict[str, Any], name: str, **arguments: Any) -> bool:
    try:
        jsonschema.validate(json.loads(call_text(name, arguments)), schema)
    except jsonschema.ValidationError:
        return False
    return True


def test_old_is_a_line_of_a_file_the_task_names(tmp_path: Path) -> None:
    schema = schema_for(tmp_path)
    line = "    return sum(values) / (len(values) + 1)"
    assert valid(schema, "propose_patch", path="calc.py", old=line, new="    return 0")
    for wrong in ("average(values) / (len(values) + 1)", "def average(values): pass", ""):
        assert not valid(schema, "propose_patch", path="calc.py", old=wrong, new="x"), wrong
    # a file the job has not named nor read: `old` as the model writes it
    assert valid(schema, "propose_patch", path="other.py", old="X =", new="X = 3")
    assert valid(schema, "read_file", path="notes.py")
    assert not valid(schema, "propose_patch", path="missing.py", old="X", new="Y")


def test_a_file_read_gets_its_lines_too(tmp_path: Path) -> None:
    schema = schema_for(tmp_path, read=("notes.py",))
    assert valid(schema, "propose_patch", path="notes.py", old="NOTE = 1", new="NOTE = 2")
    assert not valid(schema, "propose_patch", path="notes.py", old="NOTE", new="NOTE = 2")
    variants = [c for c in schema["oneOf"] if c["properties"]["name"]["enum"] == ["propose_patch"]]
    paths = [v["properties"]["arguments"]["properties"]["path"]["enum"] for v in variants]
    assert paths == [["calc.py"], ["notes.py"], ["other.py"]], paths


@pytest.mark.parametrize("lines", [0, 301])
def test_a_file_with_no_lines_or_too_many_is_left_free(tmp_path: Path, lines: int) -> None:
    (tmp_path / "calc.py").write_text("".join(f"x{n} = {n}\n" for n in range(lines)))
    context = job_context(disk_job(TASK, tmp_path, Settings(sandbox_backend="none")))
    context.task_files = ("calc.py",)
    choices = argument_choices(context, TASK)()
    tools = [t for t in build_tools(context) if t.name == "propose_patch"]
    schema = tool_call_response_format(tools, choices)["json_schema"]["schema"]
    assert valid(schema, "propose_patch", path="calc.py", old="anything", new="x")
