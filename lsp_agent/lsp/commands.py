"""The `lspAgent.*` commands: their names, argument checks and the task text a job gets.

Every command takes one JSON object argument (a bare value is accepted where the
object would hold one field):

- `lspAgent.run {task, uri?, range?}` -> `{jobId, progressToken}`;
- `lspAgent.cancel {jobId}` -> `{jobId, cancelled}`;
- `lspAgent.approve {patchId}` / `lspAgent.reject {patchId, reason?}` -> `{approvalId, status}`
  (`patchId` is the approval id `a1` shown in the dialog, the progress and the log, or the
  patch id `p1` it is about; `approvalId` is accepted too);
- `lspAgent.status` -> `{job, jobs, pendingApprovals, lastJob, projectEnv}` (projectEnv: whether
  the workspace's declared dependencies are prepared for checks, `lsp-agent sandbox prepare`;
  each job's `plan` is its latest plan when AGENT_PLANNING_INTERVAL is on, else null);
- `lspAgent.undo {jobId?}` -> `{jobId, status, restored, changedSince, message}`: restores what
  the job (default: the last one) wrote, in one `workspace/applyEdit`; files whose written
  lines changed since are left and listed (`changedSince`: `{path, reason}`); `status` is
  `applied`, `nothing`, `rejected` or `failed`;
- `lspAgent.prepare` -> `{status}`: `asking` (the editor shows what will run, with Prepare /
  Cancel; only Prepare downloads anything), `ready`, `running` or `none`.

Bad arguments raise `CommandError`, which the server answers as JSON-RPC InvalidParams.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

RUN = "lspAgent.run"
CANCEL = "lspAgent.cancel"
APPROVE = "lspAgent.approve"
REJECT = "lspAgent.reject"
STATUS = "lspAgent.status"
PREPARE = "lspAgent.prepare"
UNDO = "lspAgent.undo"
ALL = (RUN, CANCEL, APPROVE, REJECT, STATUS, PREPARE, UNDO)

MAX_TASK_CHARS = 10_000
SELECTION_LINES = 60
SELECTION_CHARS = 4_000


class CommandError(ValueError):
    """The command's arguments are wrong; the message says how."""


@dataclass(frozen=True)
class RunRequest:
    """`lspAgent.run`'s argument."""

    task: str
    uri: str | None = None
    range: types.Range | None = None


@dataclass(frozen=True)
class CancelRequest:
    """`lspAgent.cancel`'s argument."""

    job_id: int


@dataclass(frozen=True)
class ApprovalAnswer:
    """`lspAgent.approve` / `lspAgent.reject`'s argument: which question, and why."""

    ident: str
    reason: str = ""


@dataclass(frozen=True)
class RejectAnswer(ApprovalAnswer):
    """`lspAgent.reject`'s argument (the same fields; its own type for its own messages)."""


def _one_object(command: str, args: Sequence[Any], example: str) -> dict[str, Any]:
    if len(args) != 1 or not isinstance(args[0], dict):
        raise CommandError(f"{command} takes one object argument, e.g. {example}")
    return args[0]


def _position(value: Any, where: str) -> types.Position:
    if not isinstance(value, dict):
        raise CommandError(f"{where} must be an object {{line, character}}")
    numbers: list[int] = []
    for name in ("line", "character"):
        number = value.get(name)
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise CommandError(f"{where}.{name} must be a non-negative integer")
        numbers.append(number)
    return types.Position(line=numbers[0], character=numbers[1])


def parse_range(value: Any) -> types.Range:
    if not isinstance(value, dict):
        raise CommandError("range must be an object {start, end}")
    start = _position(value.get("start"), "range.start")
    end = _position(value.get("end"), "range.end")
    if (end.line, end.character) < (start.line, start.character):
        raise CommandError("range.end is before range.start")
    return types.Range(start=start, end=end)


def parse_run(args: Sequence[Any]) -> RunRequest:
    obj = _one_object(RUN, args, '{"task": "fix the failing test", "uri": "file:///…"}')
    task = obj.get("task")
    if not isinstance(task, str) or not task.strip():
        hint = (
            " (this action asks for the task: the client should prompt for it)"
            if obj.get("ask")
            else ""
        )
        raise CommandError(f"{RUN}: `task` must be a non-empty string{hint}")
    if len(task) > MAX_TASK_CHARS:
        raise CommandError(f"{RUN}: `task` is longer than {MAX_TASK_CHARS} characters")
    uri = obj.get("uri")
    if uri is not None and (not isinstance(uri, str) or ":" not in uri):
        raise CommandError(f"{RUN}: `uri` must be a document URI string")
    rng = obj.get("range")
    return RunRequest(task.strip(), uri, parse_range(rng) if rng is not None else None)


def parse_job_id(args: Sequence[Any], command: str = CANCEL) -> int:
    """The job id of `lspAgent.cancel`'s arguments (`{jobId}` or a bare id)."""
    value: Any = args[0] if len(args) == 1 else None
    if isinstance(value, dict):
        value = value.get("jobId", value.get("id"))
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise CommandError(f'{command} takes one object argument {{"jobId": N}}')
    return value


def parse_undo(args: Sequence[Any]) -> int | None:
    """The job id of `lspAgent.undo`'s arguments; None (the last job) when none is given."""
    if not args or (len(args) == 1 and args[0] in (None, [])):  # Lua's {} is sent as []
        return None
    first = args[0]
    if len(args) == 1 and isinstance(first, dict) and first.get("jobId") is None:
        return None
    return parse_job_id(args, UNDO)


def parse_approval(command: str, args: Sequence[Any]) -> tuple[str, str]:
    """(approval or patch id, reason) from `{patchId}` / `{approvalId}` / a bare id."""
    value: Any = args[0] if len(args) == 1 else None
    reason = ""
    if isinstance(value, dict):
        given = value.get("reason")
        reason = given if isinstance(given, str) else ""
        value = value.get("patchId", value.get("approvalId", value.get("id")))
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise CommandError(
            f'{command} takes one object argument {{"patchId": "a1"}} (the id shown in the '
            "approval question, or the patch id)"
        )
    return value.strip(), reason


def register_argument_types(converter: Any) -> None:
    """Teach pygls's converter our command argument types, with this module's messages.

    pygls structures each `workspace/executeCommand` argument into the type its handler
    declares; a `CommandError` raised here reaches the client as InvalidParams.
    """
    converter.register_structure_hook(RunRequest, lambda value, _: parse_run([value]))
    converter.register_structure_hook(
        CancelRequest, lambda value, _: CancelRequest(parse_job_id([value]))
    )
    converter.register_structure_hook(
        ApprovalAnswer, lambda value, _: ApprovalAnswer(*parse_approval(APPROVE, [value]))
    )
    converter.register_structure_hook(
        RejectAnswer, lambda value, _: RejectAnswer(*parse_approval(REJECT, [value]))
    )


def task_text(request: RunRequest, rel_path: str | None, selection: str | None) -> str:
    """The task as the agent sees it: the user's words, then where, then the selection."""
    parts = [request.task]
    if rel_path is not None:
        where = f"File: {rel_path}"
        if request.range is not None:
            first, last = request.range.start.line + 1, request.range.end.line + 1
            where += f", line {first}" if first == last else f", lines {first}-{last}"
        parts.append(where)
    if selection:
        parts.append(f"Selected code:\n```\n{selection}\n```")
    return "\n\n".join(parts)


def selection_text(text: str, rng: types.Range | None) -> str | None:
    """The selected lines (whole lines, bounded), or None for an empty selection."""
    if rng is None or (rng.start == rng.end):
        return None
    lines = text.splitlines()[rng.start.line : rng.end.line + 1]
    if not lines:
        return None
    clipped = lines[:SELECTION_LINES]
    out = "\n".join(clipped)[:SELECTION_CHARS]
    if len(clipped) < len(lines) or len(out) < len("\n".join(clipped)):
        out += "\n… (selection shortened)"
    return out if out.strip() else None
