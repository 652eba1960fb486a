"""lsp-agent on one exercise: one job, as `lsp-agent run --yes "TASK" --repo DIR` runs it.

The settings are read as `run` reads them (the user's scope, the repository's `.env` if it
had one), with the bench's model and step limit; patches and approval-needing commands are
approved as `--yes` does (a denied command still never runs), and the agent's tools and
sandbox checks are the real ones. `--model scripted` plays Exercism's example solution.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsp_agent.agent.job_types import ClientInfo, JobRequest, JobResult, ProgressEvent
from lsp_agent.agent.preflight import preflight
from lsp_agent.benchmarks.edits.exercises import Exercise
from lsp_agent.settings import Settings
from tools.approval_gate import AutoApprove
from tools.patches import DiskPatchWriter
from tools.workspace import DiskWorkspace

SCRIPTED = "scripted"
CLIENT = ClientInfo("bench-edits", "approve_all")  # as `lsp-agent run --yes` answers


@dataclass(frozen=True)
class OurModel:
    """What lsp-agent runs on: a model id, and the endpoint when it is served (openai/…)."""

    model_id: str
    api_base: str = ""
    max_steps: int | None = None
    agent_type: str = "tool_calling"  # AGENT_TYPE of its jobs (`bench edits --agent-type`)


@dataclass
class OurRun:
    result: JobResult
    events: list[dict[str, Any]] = field(default_factory=list)  # the job's progress, in order


def job_settings(repo: Path, model: OurModel) -> Settings:
    settings = preflight(repo, client=CLIENT).settings
    overrides: dict[str, Any] = {"model_id": model.model_id, "agent_type": model.agent_type}
    if model.api_base:
        overrides["model_api_base"] = model.api_base
    if model.max_steps:
        overrides["agent_max_steps"] = model.max_steps
    return dataclasses.replace(settings, **overrides)


def model_problem(model: OurModel) -> str | None:
    """Why lsp-agent's model cannot be reached (None when it can), as `run` checks it."""
    from lsp_agent.models.factory import check_model_reachable

    return check_model_reachable(job_settings(Path.cwd(), model).model_config())


def scripted_turns(exercise: Exercise) -> list[dict[str, Any]]:
    """The reference: read the stub, replace it with the example solution (in pieces of at
    most `SCRIPTED_PIECE_CHARS`: a tool input is bounded, VALIDATION_MAX_CHARS), apply, answer."""
    stub = exercise.solution_files[0]
    pieces = _pieces(exercise.example)
    turns: list[dict[str, Any]] = [{"tool": "read_file", "arguments": {"path": stub}}]
    old = exercise.files[stub]
    for number, piece in enumerate(pieces, start=1):
        new = piece if number == len(pieces) else piece + SCRIPTED_MARK
        turns.append({"tool": "propose_patch", "arguments": {"path": stub, "old": old, "new": new}})
        turns.append({"tool": "apply_patch", "arguments": {"patch_id": f"p{number}"}})
        old = SCRIPTED_MARK
    turns.append({"final_answer": f"Implemented {stub} from the instructions."})
    return turns


SCRIPTED_PIECE_CHARS = 3000
SCRIPTED_MARK = "# (continued)\n"


def _pieces(text: str) -> list[str]:
    pieces, current = [], ""
    for line in text.splitlines(keepends=True):
        if current and len(current) + len(line) > SCRIPTED_PIECE_CHARS:
            pieces.append(current)
            current = ""
        current += line
    return [*pieces, current]


def run_ours(
    exercise: Exercise,
    repo: Path,
    task: str,
    model: OurModel,
    *,
    timeout_s: float,
    on_progress: Callable[[ProgressEvent], None] = lambda event: None,
    on_timeout: Callable[[], None] = lambda: None,
) -> OurRun:
    """Run the job to its end (or cancel it after `timeout_s`, and call `on_timeout`: the
    bench drops the model request under way, which the job would otherwise wait for)."""
    from lsp_agent.agent.runtime import run_job

    run = OurRun(JobResult("failed"))

    def progress(event: ProgressEvent) -> None:
        run.events.append(dataclasses.asdict(event))
        on_progress(event)

    scripted = None
    if model.model_id == SCRIPTED:
        from lsp_agent.models.scripted import ScriptedModel

        scripted = ScriptedModel(scripted_turns(exercise), model_id=SCRIPTED)
    cancel = threading.Event()

    def stop() -> None:
        cancel.set()
        on_timeout()

    timer = threading.Timer(timeout_s, stop)
    timer.start()
    try:
        request = JobRequest(
            task,
            job_settings(repo, model),
            DiskWorkspace(repo),
            approvals=AutoApprove(),
            writer=DiskPatchWriter(repo),
            progress=progress,
            cancel=cancel,
            client=CLIENT,
            model=scripted,
        )
        run.result = run_job(request)
    finally:
        timer.cancel()
    return run
