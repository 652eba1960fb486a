"""Run one agent job: the entry point shared by the language server, `run` and `demo`.

`run_agent_job` blocks (hosts run it off their event loop) and never raises for model or
tool problems: every ending — final answer, max steps, cancel, loop stop, a model that
cannot be reached — is a `JobResult`. Bugs are logged with their traceback and reported
as `failed`.
"""

from __future__ import annotations

import logging
import shlex
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsp_agent.agent.job_types import JobResult, JobStatus, ProgressEvent
from lsp_agent.logging_setup import quiet_third_party_imports
from lsp_agent.settings import Settings
from safety.host_env import restore_process_environ
from tools.approval_gate import ApprovalGate
from tools.patches import PatchWriter
from tools.workspace import Workspace

if TYPE_CHECKING:
    from lsp_agent.models.capabilities import CapabilityMemory
    from tools.base import ToolContext

log = logging.getLogger(__name__)


def _tool_context(
    settings: Settings,
    workspace: Workspace,
    approvals: ApprovalGate,
    writer: PatchWriter,
    on_progress: Callable[[ProgressEvent], None],
    *,
    cancel: threading.Event | None = None,
    mcp_servers: tuple[Any, ...] = (),
) -> Any:
    from lsp_agent.agent.memory import WorkspaceMemory
    from safety.policy import CommandPolicy
    from safety.run_state import AgentState
    from sandbox import open_sandbox
    from tools.approval_gate import HostCommandApproval
    from tools.base import ToolContext, ToolLimits

    state = AgentState(max_steps=settings.agent_max_steps + 1)

    def tool_started(name: str, arguments: dict[str, Any]) -> None:
        on_progress(
            ProgressEvent(
                min(state.step + 1, settings.agent_max_steps),
                settings.agent_max_steps,
                name,
                f"running {name}",
                "tool",
                arguments=dict(arguments),
            )
        )

    return ToolContext(
        workspace=workspace,
        limits=ToolLimits.from_settings(settings),
        policy=CommandPolicy(
            workspace_root=workspace.root, policy_file=settings.policy_file or None
        ),
        approvals=approvals,
        state=state,
        writer=writer,
        sandbox_factory=lambda: open_sandbox(
            workspace.root, settings.sandbox_config(), host_approval=HostCommandApproval(approvals)
        ),
        check_command=shlex.split(settings.check_command) or None,
        on_tool_call=tool_started,
        memory=WorkspaceMemory(workspace.root) if settings.agent_memory else None,
        mcp=mcp_toolbox(settings, workspace.root, cancel, mcp_servers),
    )


def mcp_toolbox(
    settings: Settings,
    root: Path,
    cancel: threading.Event | None,
    extra: tuple[Any, ...] = (),
) -> Any:
    """The job's MCP servers: the user's `MCP_CONFIG` and the front end's `extra` specs
    (ACP clients pass theirs), or None. A bad file is logged; the job goes on without it."""
    if not settings.mcp_config and not extra:
        return None
    from tools.mcp import McpConfigError, McpToolbox, load_mcp_config

    try:
        specs = load_mcp_config(settings.mcp_config)
    except McpConfigError as exc:
        log.warning("%s; no MCP tools from it in this job", exc)
        specs = []
    specs = [*specs, *extra]
    return McpToolbox(specs, root, cancel=cancel) if specs else None


def offer_argument_choices(model: Any, context: ToolContext) -> None:
    """Models that constrain arguments (the embedded one) get the repository's paths and
    the run's patch ids, asked afresh for every reply."""
    if not hasattr(model, "argument_choices"):
        return
    from lsp_agent.models.embedded.model import repository_paths

    root = context.workspace.root

    def choices() -> dict[str, list[str]]:
        return {
            "path": repository_paths(root),
            "patch_id": [patch.id for patch in context.patches.all()],
        }

    model.argument_choices = choices


def step_limit_message(max_steps: int) -> str:
    """Why a run that used all its steps ended, and what the user can do about it."""
    return (
        f"The step limit ({max_steps} steps) ended the run before a final answer. Give a "
        "more precise task, or allow more steps (`lsp-agent run --max-steps N`, or the "
        "AGENT_MAX_STEPS setting)."
    )


def agent_builder(settings: Settings) -> Callable[..., Any]:
    """`build_agent`, or code mode's builder when AGENT_TYPE=code (which falls back to
    `build_agent` itself when model code cannot run in Docker)."""
    if settings.agent_type == "code":
        from lsp_agent.agent.code_agent import code_agent_builder

        return code_agent_builder(settings.sandbox_config())
    from lsp_agent.agent.factory import build_agent

    return build_agent


def job_subagents(  # noqa: PLR0917 (the job's parts, passed on as they are)
    settings: Settings,
    model: Any,
    context: ToolContext,
    num_ctx: int,
    on_progress: Callable[[ProgressEvent], None],
    cancel: threading.Event,
) -> list[Any]:
    """The helper agents (AGENT_SUBAGENTS) the job offers as tools, unwrapped."""
    from lsp_agent.agent.explorer import subagent_tools

    return subagent_tools(
        settings, model, context, num_ctx=num_ctx, on_progress=on_progress, cancel=cancel
    )


def _status(
    error: BaseException | None, cancel: threading.Event, stopped: bool, answered: bool
) -> JobStatus:
    if cancel.is_set():
        return "cancelled"
    if stopped:
        return "stopped"
    if error is not None:
        return "failed"
    return "answered" if answered else "max_steps"


def _before_job(settings: Settings) -> None:
    """The process as a job needs it: os.environ the user's again (what a library loaded
    into it since is not), tracing set up (its failure never stops a job)."""
    from lsp_agent.agent.telemetry import setup_telemetry

    restore_process_environ()
    try:
        setup_telemetry(settings)
    except Exception:
        log.exception("telemetry set-up failed; continuing without traces")


def run_agent_job(
    task: str,
    *,
    settings: Settings,
    workspace: Workspace,
    approvals: ApprovalGate,
    writer: PatchWriter,
    on_progress: Callable[[ProgressEvent], None],
    cancel: threading.Event,
    model: Any = None,
    mcp_servers: tuple[Any, ...] = (),
    capabilities: CapabilityMemory | None = None,
) -> JobResult:
    """Run `task` to its end. `model=None` builds the model from `settings`; `mcp_servers`
    (`tools.mcp.config.McpServerSpec`s) are offered beside the user's `MCP_CONFIG`;
    `capabilities` carries what the session learnt about the model server's parameters (see
    `lsp_agent.models.capabilities`; None: this job starts afresh)."""
    started = time.monotonic()
    quiet_third_party_imports()
    from smolagents.utils import AgentError

    from lsp_agent.agent.instructions import task_message
    from lsp_agent.agent.memory import WorkspaceMemory
    from lsp_agent.models.errors import ModelConfigError
    from lsp_agent.models.factory import build_model, check_model_reachable
    from lsp_agent.models.robust import RobustModel

    _before_job(settings)
    try:
        inner = (
            model
            if model is not None
            else build_model(
                settings,
                constrained_calls=settings.model_constrained_calls,
                capabilities=capabilities,
            )
        )
    except ModelConfigError as exc:
        return JobResult("failed", error=str(exc), duration_s=time.monotonic() - started)
    robust = RobustModel(inner)
    context = _tool_context(
        settings, workspace, approvals, writer, on_progress, cancel=cancel, mcp_servers=mcp_servers
    )
    try:  # building the agent starts the MCP servers: stop them if it fails
        offer_argument_choices(inner, context)
        num_ctx = min(settings.model_num_ctx, getattr(inner, "context_length", None) or 1 << 30)
        agent, monitor = agent_builder(settings)(
            robust,
            context,
            max_steps=settings.agent_max_steps,
            num_ctx=num_ctx,
            on_progress=on_progress,
            cancel=cancel,
            planning_interval=settings.agent_planning_interval,
            extra_tools=job_subagents(settings, robust, context, num_ctx, on_progress, cancel),
        )
    except BaseException:
        context.close()
        raise
    answer: Any = ""
    error: BaseException | None = None
    try:
        notes = context.memory.for_model() if isinstance(context.memory, WorkspaceMemory) else ""
        answer = agent.run(
            task_message(task, workspace.root, notes), max_steps=settings.agent_max_steps
        )
    except AgentError as exc:  # interrupted (cancel / loop stop) or a model-side failure
        error = exc
    except Exception as exc:
        log.exception("agent job failed")
        error = exc
    finally:
        if hasattr(agent, "cleanup"):  # code mode: remove the code container
            agent.cleanup()
        context.close()
    status = _status(error, cancel, context.state.stopped, monitor.final_answer_given)
    message = ""
    if robust.first_call_unreachable:
        status = "failed"
        message = check_model_reachable(settings) or "the model could not be reached"
    elif status == "stopped" and context.state.stop_signal is not None:
        message = context.state.stop_signal.hint
    elif error is not None and status == "failed":
        message = f"{type(error).__name__}: {error}"
    elif status == "max_steps":
        message = step_limit_message(settings.agent_max_steps)
    usage = robust.token_usage
    return JobResult(
        status=status,
        answer=str(answer) if answer is not None else "",
        steps=getattr(monitor, "steps_taken", 0) or len(monitor.tools_used) or context.state.step,
        error=message,
        patches=[patch.line() for patch in context.patches.all()],
        tools_used=monitor.tools_used,
        prompt_tokens=getattr(usage, "input_tokens", 0) if usage else 0,
        completion_tokens=getattr(usage, "output_tokens", 0) if usage else 0,
        model_calls=robust.generate_calls,
        duration_s=time.monotonic() - started,
    )
