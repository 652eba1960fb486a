"""The agent's 14 tools (15 with workspace memory), each wrapped in the InstrumentedTool;
the patch tools offered follow the edit formats (AGENT_EDIT_FORMATS)."""

from __future__ import annotations

from tools.base import AgentTool, ToolContext
from tools.command_tools import RunCmd, RunTests
from tools.files import ListFiles, ReadFile, ReadFileSnippet, RepoInfo
from tools.git_tools import GitDiff, GitLog, GitStatus
from tools.instrumented import InstrumentedTool
from tools.memory_tool import Remember
from tools.patch_tools import (
    ApplyPatch,
    ProposeFile,
    ProposeFunction,
    ProposePatch,
    ProposePatchUnified,
    ShowPatch,
)
from tools.search_tool import RgSearch

TOOL_CLASSES: tuple[type[AgentTool], ...] = (
    RepoInfo,
    ListFiles,
    RgSearch,
    ReadFile,
    ReadFileSnippet,
    GitStatus,
    GitDiff,
    GitLog,
    ProposePatchUnified,
    ProposePatch,
    ShowPatch,
    ApplyPatch,
    RunCmd,
    RunTests,
)
TOOL_NAMES = tuple(str(cls.name) for cls in TOOL_CLASSES)
PROPOSERS = {
    cls.name: cls for cls in (ProposePatch, ProposePatchUnified, ProposeFile, ProposeFunction)
}
EDIT_FORMAT_TOOLS = {
    "search_replace": "propose_patch",
    "unified_diff": "propose_patch_unified",
    "whole_file": "propose_file",
    "whole_function": "propose_function",
}


def build_tools(context: ToolContext, *, read_only: bool = False) -> list[InstrumentedTool]:
    """Every tool, bound to `context` and wrapped (`remember` only when memory is on; of
    the tools that propose patches, those in `context.patch_tools`), then the tools of the
    job's MCP servers (this starts them). `read_only=True`: only the tools that just read
    the repository (no MCP tools: what they do is not known)."""
    if read_only:
        classes: tuple[type[AgentTool], ...] = tuple(cls for cls in TOOL_CLASSES if cls.read_only)
    else:
        offered = [
            cls
            for cls in TOOL_CLASSES
            if cls.name not in PROPOSERS or cls.name in context.patch_tools
        ]
        for extra in (ProposeFile, ProposeFunction):  # edit formats not offered by default
            if extra.name in context.patch_tools:
                offered.insert(offered.index(ShowPatch), extra)
        classes = (*offered, *((Remember,) if context.memory is not None else ()))
    tools: list[AgentTool] = [cls(context) for cls in classes]
    if context.mcp is not None and not read_only:
        tools.extend(context.mcp.tools(context))
    return [InstrumentedTool(tool, context) for tool in tools]
