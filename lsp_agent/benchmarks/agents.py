"""What the benchmarks build agents from: a tools' context that runs nothing, an agent on it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from lsp_agent.agent.factory import AgentRun, BuiltAgent, build_agent
from sandbox.null_backend import NullSandbox
from sandbox.project import project_profile
from tools.base import ToolContext
from tools.patches import DiskPatchWriter
from tools.workspace import DiskWorkspace


def offline_context(root: Path, **kwargs: Any) -> ToolContext:
    """The tools' context of a measurement on `root`: files read from the disk, approved
    patches written there, and the null sandbox (no command runs)."""
    return ToolContext(
        workspace=DiskWorkspace(root),
        writer=DiskPatchWriter(root),
        sandbox_factory=lambda: NullSandbox(root, reason="a benchmark runs no commands"),
        project=project_profile(root),
        **kwargs,
    )


def bench_agent(model: Any, context: ToolContext, *, max_steps: int, num_ctx: int) -> BuiltAgent:
    """The tool-calling agent a job would build on `model` and `context` (no progress, no
    cancel)."""
    run = AgentRun(model, context, max_steps, num_ctx, lambda event: None, threading.Event())
    return build_agent(run)
