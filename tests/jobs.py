"""Jobs for tests: a `JobRequest` on a repository's disk, as `lsp-agent run --yes` makes one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsp_agent.agent.job_types import JobRequest
from lsp_agent.settings import Settings
from tools.approval_gate import AutoApprove
from tools.patches import DiskPatchWriter
from tools.workspace import DiskWorkspace


def disk_job(task: str, repo: Path, settings: Settings, **kwargs: Any) -> JobRequest:
    """The job `task` on `repo`: files read from and written to its disk, every approval
    granted unless `approvals` says otherwise; `kwargs` as `JobRequest`'s."""
    kwargs.setdefault("approvals", AutoApprove())
    return JobRequest(task, settings, DiskWorkspace(repo), writer=DiskPatchWriter(repo), **kwargs)
