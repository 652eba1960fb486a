"""The one job runner: `run_job(JobRequest) -> JobResult`, for every front end.

The language server, the ACP agent, `lsp-agent run` and the compliance benchmark all call
`run_job` (see `job_types` for the contract). It blocks (hosts run it off their event loop)
and never raises for model or tool problems: every ending — final answer, max steps, cancel,
loop stop, a model that cannot be reached — is a `JobResult`. Bugs are logged with their
traceback and reported as `failed`.

A job: tracing set up (once per process, `services`), the model ready (`models.factory`), the
tools' context (workspace, policy, run state, sandbox, the front end's gate and writer, MCP
servers, memory), the agent built in the mode AGENT_TYPE names (`factory.build_agent`), run,
and everything it opened closed again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from lsp_agent.agent.job_types import JobRequest, JobResult, JobStatus, ProgressEvent
from lsp_agent.logging_setup import quiet_third_party_imports
from safety.host_env import restore_process_environ
from tools.base import ToolContext

if TYPE_CHECKING:
    from lsp_agent.agent.factory import AgentMode, AgentRun, BuiltAgent
    from lsp_agent.models.robust import RobustModel

log = logging.getLogger(__name__)


def step_limit_message(max_steps: int) -> str:
    """Why a run that used all its steps ended, and what the user can do about it."""
    return (
        f"The step limit ({max_steps} steps) ended the run before a final answer. Give a "
        "more precise task, or allow more steps (`lsp-agent run --max-steps N`, or the "
        "AGENT_MAX_STEPS setting)."
    )


def job_context(request: JobRequest) -> ToolContext:
    """The tools' context of one job, from the request and its settings."""
    from lsp_agent.agent.memory import WorkspaceMemory
    from safety.policy import CommandPolicy
    from safety.run_state import AgentState
    from sandbox import open_sandbox
    from sandbox.project import project_profile
    from tools.approval_gate import HostCommandApproval
    from tools.registry import EDIT_FORMAT_TOOLS

    settings, workspace, progress = request.settings, request.workspace, request.progress
    state = AgentState(max_steps=settings.agent_max_steps + 1)

    def tool_started(name: str, arguments: dict[str, Any]) -> None:
        step = min(state.step + 1, settings.agent_max_steps)
        progress(
            ProgressEvent(
                step, settings.agent_max_steps, name, f"running {name}", "tool", dict(arguments)
            )
        )

    sandbox = settings.sandbox_config()
    host_approval = HostCommandApproval(request.approvals)
    # One answer per repository fact for the whole job: the tools and the sandbox read it.
    profile = project_profile(workspace.root, settings.check_command, workspace.list_files())
    return ToolContext(
        workspace=workspace,
        writer=request.writer,
        sandbox_factory=lambda: open_sandbox(
            workspace.root, sandbox, host_approval=host_approval, profile=profile
        ),
        project=profile,
        limits=settings.tool_limits(),
        policy=CommandPolicy(
            workspace_root=workspace.root, policy_file=settings.policy_file or None
        ),
        approvals=request.approvals,
        state=state,
        on_tool_call=tool_started,
        memory=WorkspaceMemory(workspace.root) if settings.agent_memory else None,
        patch_tools=tuple(EDIT_FORMAT_TOOLS[f] for f in settings.agent_edit_formats),
        mcp=_mcp_toolbox(request),
    )


def _mcp_toolbox(request: JobRequest) -> Any:
    """The job's MCP servers: the user's `MCP_CONFIG` and the front end's `tool_servers`
    (ACP clients pass theirs), or None. A bad file is logged; the job goes on without it."""
    settings = request.settings
    if not settings.mcp_config and not request.tool_servers:
        return None
    from tools.mcp import McpConfigError, McpToolbox, load_mcp_config

    try:
        specs = load_mcp_config(settings.mcp_config)
    except McpConfigError as exc:
        log.warning("%s; no MCP tools from it in this job", exc)
        specs = []
    specs = [*specs, *request.tool_servers]
    return McpToolbox(specs, request.workspace.root, cancel=request.cancel) if specs else None


def argument_choices(context: ToolContext, task: str) -> Callable[[], dict[str, Any]]:
    """What a model that constrains arguments (the embedded one) may name: the workspace's
    files (as the tools list them), the run's patch ids (not one apply_patch never applies:
    `tools.patches.never_applied`) and, for `propose_patch`'s `old`,
    the snippets the task quotes that are text of the file the call names, then its lines
    (as the tools read it: the editor's buffer when open), for `propose_function`'s `name`
    its definitions, asked afresh for every reply."""
    from lsp_agent.agent.task_pointers import quoted_snippets
    from tools.files import file_definitions, file_lines
    from tools.patches import never_applied

    def lines_of_path(arguments: Mapping[str, Any]) -> list[str]:
        lines = file_lines(context.workspace, str(arguments.get("path", "")))
        return [*quoted_snippets(task, "\n".join(lines)), *lines]

    def definitions_of_path(arguments: Mapping[str, Any]) -> list[str]:
        if "path" not in arguments:  # another tool's `name` (an MCP tool's, say)
            return []
        return file_definitions(context.workspace, str(arguments["path"]))

    def choices() -> dict[str, Any]:
        return {
            "path": context.workspace.list_files(),
            "patch_id": [
                patch.id
                for patch in context.patches.all()
                if not never_applied(patch, context.workspace, context.task_names)
            ],
            "old": lines_of_path,
            "name": definitions_of_path,
        }

    return choices


def _message(request: JobRequest, context: ToolContext, notes: str) -> str:
    """The task message, with the files the task names as they are now."""
    from lsp_agent.agent.instructions import task_message
    from lsp_agent.agent.task_pointers import find_pointers, task_names

    pointers = find_pointers(request.task, request.workspace)
    context.task_files = pointers.paths
    context.task_names = tuple(task_names(request.task))
    context.seen_paths.update(pointers.shown)  # the task message carries their text
    return task_message(request.task, request.workspace.root, notes, pointers.text)


def _attempt(built: BuiltAgent, message: str, max_steps: int) -> tuple[Any, BaseException | None]:
    """Run the agent on `message`: its answer, or the error that ended it (interrupted by a
    cancel or a loop stop, or a model-side failure)."""
    from smolagents.utils import AgentError

    try:
        return built.agent.run(message, max_steps=max_steps), None
    except AgentError as exc:
        return "", exc


def _later_attempts(
    request: JobRequest,
    run: AgentRun,
    *,
    mode: AgentMode,
    built: BuiltAgent,
    ended: tuple[Any, BaseException | None],
    notes: str,
) -> tuple[BuiltAgent, Any, BaseException | None]:
    """The job's next attempts while `fresh_start.next_attempt` gives one (`ended`: how the
    last attempt ended, its answer and error): the last attempt's agent, answer and error."""
    from lsp_agent.agent.explorer import subagent_tools
    from lsp_agent.agent.factory import build_agent
    from lsp_agent.agent.fresh_start import next_attempt, start_again

    context, subagents = run.context, request.settings.agent_subagents
    answer, error = ended
    attempts = 1
    while not request.cancel.is_set():
        again = next_attempt(
            context,
            request.task,
            run.max_steps - context.state.step,
            answered=error is None and built.monitor.final_answer_given,
            attempts=attempts,
        )
        if again is None:
            break
        built = start_again(
            run,
            built,
            again,
            lambda rerun: build_agent(rerun, mode, extra_tools=subagent_tools(subagents, rerun)),
        )
        message = f"{_message(request, context, notes)}\n\n{again.note}"
        answer, error = _attempt(built, message, built.monitor.max_steps)
        attempts += 1
    return built, answer, error


def _status(
    error: BaseException | None, request: JobRequest, stopped: bool, answered: bool
) -> JobStatus:
    if request.cancel.is_set():
        return "cancelled"
    if stopped:
        return "stopped"
    if error is not None:
        return "failed"
    return "answered" if answered else "max_steps"


def run_job(request: JobRequest) -> JobResult:
    """Run `request.task` to its end (see the module's docstring)."""
    started = time.monotonic()
    quiet_third_party_imports()
    from smolagents.utils import AgentError

    from lsp_agent.agent.closing_offer import offer_passing_patch
    from lsp_agent.agent.explorer import subagent_tools
    from lsp_agent.agent.factory import AgentRun, agent_mode, build_agent
    from lsp_agent.agent.memory import WorkspaceMemory
    from lsp_agent.agent.services import services
    from lsp_agent.models.errors import ModelConfigError
    from lsp_agent.models.factory import ready_model

    settings, shared = request.settings, services()
    restore_process_environ()  # os.environ the user's again (a library may have changed it)
    shared.start_tracing(settings.telemetry_config())
    for notice in shared.take_notices():
        request.progress(ProgressEvent(0, settings.agent_max_steps, None, notice.text, "notice"))
    try:
        model = ready_model(
            settings.model_config(), capabilities=shared.capabilities, inner=request.model
        )
    except ModelConfigError as exc:
        return JobResult("failed", error=str(exc), duration_s=time.monotonic() - started)
    context = job_context(request)
    model.offer_argument_choices(argument_choices(context, request.task))
    model.watch_cancel(request.cancel)
    run = AgentRun(
        model,
        context,
        max_steps=settings.agent_max_steps,
        num_ctx=min(settings.model_num_ctx, model.context_length or 1 << 30),
        progress=request.progress,
        cancel=request.cancel,
        planning_interval=settings.agent_planning_interval,
        task=request.task,
    )
    answer: Any = ""
    error: BaseException | None = None
    mode = built = None
    try:
        mode = agent_mode(settings.agent_type, settings.sandbox_config(), run)
        built = build_agent(run, mode, extra_tools=subagent_tools(settings.agent_subagents, run))
        notes = context.memory.for_model() if isinstance(context.memory, WorkspaceMemory) else ""
        answer, error = _attempt(built, _message(request, context, notes), run.max_steps)
        built, answer, error = _later_attempts(
            request, run, mode=mode, built=built, ended=(answer, error), notes=notes
        )
        if not request.cancel.is_set() and not model.first_call_unreachable:
            offer_passing_patch(
                context, built.tools, request.task, request.progress, settings.agent_max_steps
            )
    except AgentError as exc:  # from building the agent
        error = exc
    except Exception as exc:
        log.exception("agent job failed")
        error = exc
    finally:
        if mode is not None:
            mode.close()  # code mode: remove the code container
        context.close()
    return _result(request, model, context, built, answer, error, started)


def _result(  # noqa: PLR0917 (the job's parts, as the runner ends them)
    request: JobRequest,
    model: RobustModel,
    context: ToolContext,
    built: BuiltAgent | None,
    answer: Any,
    error: BaseException | None,
    started: float,
) -> JobResult:
    """How the job ended, told as a `JobResult`."""
    from lsp_agent.models.factory import check_model_reachable

    settings = request.settings
    monitor = built.monitor if built is not None else None
    answered = monitor is not None and monitor.final_answer_given
    status = _status(error, request, context.state.stopped, answered)
    message = ""
    if model.first_call_unreachable:
        status = "failed"
        message = check_model_reachable(settings.model_config()) or "the model could not be reached"
    elif status == "stopped" and context.state.stop_signal is not None:
        message = context.state.stop_signal.hint
    elif error is not None and status == "failed":
        message = f"{type(error).__name__}: {error}"
    elif status == "max_steps":
        message = step_limit_message(settings.agent_max_steps)
    usage = model.token_usage
    return JobResult(
        status=status,
        answer=str(answer) if answer is not None else "",
        steps=(monitor.steps_taken if monitor else 0) or context.state.step,
        error=message,
        patches=[patch.line() for patch in context.patches.all()],
        tools_used=list(monitor.tools_used) if monitor else [],
        prompt_tokens=usage.input_tokens or 0,
        completion_tokens=usage.output_tokens or 0,
        model_calls=model.generate_calls,
        duration_s=time.monotonic() - started,
        facts=context.patches.facts(),
        model_stats=list(model.call_stats),
    )
