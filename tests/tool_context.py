"""The tools' context for tests: `ToolContext` requires its writer, sandbox and project
profile; a test that does not care gets the disk writer, the user-scope sandbox
(`open_sandbox(root)`) and the profile of the repository as it is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sandbox import open_sandbox
from sandbox.project import project_profile
from tools.base import AgentTool, ToolContext, ToolLimits
from tools.patches import DiskPatchWriter
from tools.workspace import DiskWorkspace, OverlayWorkspace, Workspace


def tool_context(workspace: Workspace | Path, **kwargs: Any) -> ToolContext:
    """A `ToolContext` on `workspace` (a path means the disk); `kwargs` as `ToolContext`'s."""
    if isinstance(workspace, Path):
        workspace = DiskWorkspace(workspace)
    root = workspace.root
    kwargs.setdefault("writer", DiskPatchWriter(root))
    kwargs.setdefault("sandbox_factory", lambda: open_sandbox(root))
    kwargs.setdefault("project", project_profile(root))
    return ToolContext(workspace=workspace, **kwargs)


def make_tool(
    cls: type[AgentTool],
    root: Path,
    *,
    limits: ToolLimits | None = None,
    docs: dict[str, tuple[str, int]] | None = None,
) -> AgentTool:
    """Tool `cls` on `root`'s disk, or with the editor documents `docs` laid over it."""
    workspace = DiskWorkspace(root) if docs is None else OverlayWorkspace(root, lambda: docs)
    return cls(tool_context(workspace, limits=limits or ToolLimits()))
