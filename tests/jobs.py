"""Jobs for tests: a `JobRequest` on a repository's disk, as `lsp-agent run --yes` makes one,
run with a scripted model, and what the model was shown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsp_agent.agent.job_types import JobRequest, JobResult, ProgressEvent
from lsp_agent.models.messages import message_text
from lsp_agent.models.scripted import ScriptedModel
from lsp_agent.settings import Settings
from tools.approval_gate import AutoApprove
from tools.patches import DiskPatchWriter
from tools.workspace import DiskWorkspace


def fix_script(path: str, old: str, new: str, answer: str) -> list[dict[str, Any]]:
    """A script: read `path`, propose the search/replace patch `old` -> `new`, apply it
    (`p1`), answer `answer`."""
    return [
        {"tool": "read_file", "arguments": {"path": path}},
        {"tool": "propose_patch", "arguments": {"path": path, "old": old, "new": new}},
        {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
        {"final_answer": answer},
    ]


def disk_job(task: str, repo: Path, settings: Settings, **kwargs: Any) -> JobRequest:
    """The job `task` on `repo`: files read from and written to its disk, every approval
    granted unless `approvals` says otherwise; `kwargs` as `JobRequest`'s."""
    kwargs.setdefault("approvals", AutoApprove())
    return JobRequest(task, settings, DiskWorkspace(repo), writer=DiskPatchWriter(repo), **kwargs)


def run_scripted(
    repo: Path, turns: list[dict[str, Any]], settings: Settings, task: str, **kwargs: Any
) -> tuple[JobResult, list[ProgressEvent], ScriptedModel]:
    """Run `task` on `repo` with a `ScriptedModel` playing `turns`: the result, every
    progress event and the model (what it was asked); `kwargs` as `JobRequest`'s."""
    from lsp_agent.agent.runtime import run_job

    events: list[ProgressEvent] = []
    model = ScriptedModel(turns)
    result = run_job(disk_job(task, repo, settings, progress=events.append, model=model, **kwargs))
    return result, events, model


def tool_texts(model: ScriptedModel) -> list[str]:
    """Every tool result the model was shown, from the last request it received."""
    last = model.calls[-1].messages
    return [
        message_text(m.content)
        for m in last
        if str(getattr(m.role, "value", m.role)) == "tool-response"
    ]
