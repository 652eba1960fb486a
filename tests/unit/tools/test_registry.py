"""The tool registry: every tool the design card names, and which of them only read."""

from __future__ import annotations

from pathlib import Path

from tests.tool_context import tool_context
from tests.tool_names import BUILT_IN_TOOLS, READ_ONLY_TOOLS
from tools.registry import TOOL_CLASSES, build_tools


def test_the_registry_has_the_built_in_tools_and_flags_the_read_only_ones(tmp_path: Path) -> None:
    assert {cls.name for cls in TOOL_CLASSES} == BUILT_IN_TOOLS
    assert {cls.name for cls in TOOL_CLASSES if cls.read_only} == READ_ONLY_TOOLS
    context = tool_context(tmp_path)
    assert {tool.name for tool in build_tools(context, read_only=True)} == READ_ONLY_TOOLS
    assert {tool.name for tool in build_tools(context)} == BUILT_IN_TOOLS
