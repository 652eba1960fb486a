"""The tool schemas the model reads: compact, complete, and what the bench counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from smolagents.default_tools import FinalAnswerTool
from smolagents.models import get_tool_json_schema

from lsp_agent.benchmarks import prompt_bench
from lsp_agent.models.native_replay import NativeLiteLLMModel
from lsp_agent.models.tool_schemas import compact_tool_schema
from tests.tool_context import tool_context
from tools.base import AgentTool
from tools.registry import build_tools
from tools.workspace import DiskWorkspace


class Pick(AgentTool):
    name = "pick"
    description = "Pick one of choice, with note if given."
    inputs = {
        "choice": {"type": "string", "description": "One of them.", "enum": ["a", "b"]},
        "note": {"type": "any", "description": "Anything.", "nullable": True},
    }

    def forward(self, choice: str, note: Any = None) -> str:
        return choice


def _tools(tmp_path: Path) -> list[Any]:
    return [*build_tools(tool_context(DiskWorkspace(tmp_path))), FinalAnswerTool()]


def test_compact_schema_keeps_types_enums_and_required_only(tmp_path: Path) -> None:
    schema = compact_tool_schema(Pick(tool_context(DiskWorkspace(tmp_path))))
    assert schema == {
        "type": "function",
        "function": {
            "name": "pick",
            "description": "Pick one of choice, with note if given.",
            "parameters": {
                "type": "object",
                "properties": {
                    "choice": {"type": "string", "enum": ["a", "b"]},
                    "note": {"type": "string"},
                },
                "required": ["choice"],
            },
        },
    }


def test_no_required_list_when_every_argument_is_optional(tmp_path: Path) -> None:
    tools = {t.name: t for t in _tools(tmp_path)}
    parameters = compact_tool_schema(tools["git_log"])["function"]["parameters"]
    assert parameters == {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert compact_tool_schema(tools["repo_info"])["function"]["parameters"] == {
        "type": "object",
        "properties": {},
    }


def test_arguments_are_named_for_what_they_are(tmp_path: Path) -> None:
    """The compact schema drops per-argument prose: a name must say what the value is."""
    allowed = {
        "answer",
        "command",
        "context_lines",
        "diff",
        "end_line",
        "glob",
        "n",
        "new",
        "old",
        "patch_id",
        "path",
        "pattern",
        "start_line",
    }
    names = {argument for tool in _tools(tmp_path) for argument in tool.inputs}
    assert names <= allowed, f"new argument names, check they read well alone: {names - allowed}"


def test_required_arguments_match_smolagents(tmp_path: Path) -> None:
    for tool in _tools(tmp_path):
        ours = compact_tool_schema(tool)["function"]["parameters"].get("required", [])
        theirs = get_tool_json_schema(tool)["function"]["parameters"]["required"]
        assert ours == theirs, tool.name


def test_the_model_sends_the_compact_schemas(tmp_path: Path) -> None:
    tools = _tools(tmp_path)
    model = NativeLiteLLMModel(model_id="openai/x", api_base="http://127.0.0.1:9")
    sent = prompt_bench.sent_tool_schemas(model, tools)
    assert sent == [compact_tool_schema(t) for t in tools]
    for schema in sent:
        for prop in schema["function"]["parameters"]["properties"].values():
            assert set(prop) <= {"type", "enum", "items"}, schema


def test_fixed_prompt_is_at_most_35_percent_of_smolagents_default() -> None:
    """Token counts, not timing: a longer tool description or system prompt fails here."""
    figures = prompt_bench.measure()
    assert figures["tools"] == 15
    assert figures["ours_schema_tokens"] < figures["smolagents_schema_tokens"]
    assert figures["ratio"] <= prompt_bench.TARGET_RATIO, figures
    # every MCP tool added costs context: measured, and bounded per tool
    assert figures["ours_total_tokens"] < figures["ours_mcp_1_tokens"]
    assert figures["ours_mcp_1_tokens"] < figures["ours_mcp_10_tokens"]
    assert 20 < figures["mcp_tokens_per_tool"] < 150, figures
    # the modes' fixed prompts: short planning requests, a small explorer
    assert figures["planning_initial_tokens"] < figures["smolagents_planning_initial_tokens"] / 10
    assert figures["planning_update_tokens"] < figures["smolagents_planning_update_tokens"] / 10
    assert 0 < figures["explorer_tool_schema_tokens"] < 150, figures
    assert figures["explorer_total_tokens"] < figures["ours_total_tokens"], figures
    # code mode: the tools as signatures in the system prompt, no schemas
    assert figures["code_system_tokens"] < figures["ours_total_tokens"], figures
    assert figures["code_ratio"] <= prompt_bench.TARGET_RATIO, figures
    assert "prompts" not in figures  # texts only when asked for


def test_bench_prompt_shows_each_modes_fixed_prompt(capsys: pytest.CaptureFixture[str]) -> None:
    from lsp_agent.cli.main import main

    assert main(["bench", "prompt", "--show-prompts"]) == 0
    out = capsys.readouterr().out
    assert "code_system_tokens" in out  # the figures first
    for title in (
        "tool calling: system prompt",
        "code: system prompt",
        "planning: first plan",
        "planning: revision",
        "explorer: system prompt",
    ):
        assert f"--- {title} ---" in out, title
    assert "propose_patch(path, old, new)" in out  # code mode lists the tools as functions
    assert "<end_plan>" in out
