"""`lsp-agent run "TASK" --repo DIR [--yes]`: the agent in a terminal, no editor needed.

Progress is printed as it happens; approvals are asked at the terminal (y / n / show);
`--yes` approves patches and approval-needing commands (a denied command is never run);
with no terminal and no `--yes`, approvals are rejected and the run says so. Exit codes:
0 final answer, 1 failure or max steps, 2 bad usage. With no TASK: an interactive loop.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
from pathlib import Path
from typing import Any

from rich.console import Console

from lsp_agent.agent.job_types import ClientInfo, JobRequest, JobResult, ProgressEvent
from lsp_agent.agent.preflight import preflight
from lsp_agent.cli.terminal_text import inert
from tools.approval_gate import ApprovalGate, AutoApprove, RejectAll
from tools.patches import DiskPatchWriter
from tools.workspace import DiskWorkspace

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2
NO_TTY = "no terminal to ask and no --yes; run with --yes to approve patches and commands"


def approval_gate(yes: bool, console: Console, interactive: bool) -> ApprovalGate:
    if yes:
        return AutoApprove()
    if interactive:
        from lsp_agent.cli.terminal_approval import TerminalGate

        return TerminalGate(console)
    return RejectAll(NO_TTY)


def print_progress(console: Console, event: ProgressEvent) -> None:
    # Text from the model and the repository is printed as text, never as rich markup
    # (a patch line's "[rejected]" would otherwise vanish as an unknown tag).
    if event.kind == "tool":
        console.print(f"[dim]  … {inert(event.tool or '')}[/dim]")
        return
    if event.kind in ("info", "notice"):
        console.print(f"[yellow]{inert(event.message)}[/yellow]")
        return
    if event.kind == "plan":
        console.print(f"[magenta]plan (before step {event.step}):[/magenta]")
        console.print(inert(event.message))
        return
    if event.kind == "subagent":
        console.print(f"[dim]  {inert(event.message)}[/dim]")
        return
    tool = f"[cyan]{inert(event.tool)}[/cyan]" if event.tool else "(no tool)"
    console.print(f"step {event.step}/{event.max_steps} {tool} {inert(event.message)}")


def print_result(console: Console, result: JobResult) -> None:
    colour = "green" if result.ok else "red"
    console.print(
        f"\n[bold {colour}]{result.status}[/bold {colour}] after {result.steps} steps"
        f" in {result.duration_s:.1f} s"
    )
    if result.error:
        console.print(f"[red]{inert(result.error)}[/red]")
    for line in result.patches:
        console.print(f"patch {inert(line)}")
    if result.answer:
        console.print(f"\n{inert(result.answer)}")
    for fact in result.facts:  # what the job did, whatever the answer says
        console.print(f"[bold]lsp-agent:[/bold] {inert(fact)}")


def run_task(job: JobRequest, task: str) -> JobResult:
    """Run `task` as `job` does (the terminal's settings, gate, writer, printer)."""
    from lsp_agent.agent.runtime import run_job

    return run_job(dataclasses.replace(job, task=task, cancel=threading.Event()))


def run_headless(
    task: str | None,
    repo: Path,
    *,
    yes: bool = False,
    max_steps: int | None = None,
    model: str | None = None,
    console: Console | None = None,
) -> int:
    console = console or Console(highlight=False, soft_wrap=True)
    if not repo.is_dir():
        console.print(f"[red]--repo {repo} is not a directory[/red]")
        return EXIT_USAGE
    if max_steps is not None and max_steps < 1:
        console.print("[red]--max-steps must be 1 or more[/red]")
        return EXIT_USAGE
    interactive = sys.stdin.isatty()
    client = ClientInfo("cli", "approve_all" if yes else "ask" if interactive else "reject_all")
    prepared = preflight(repo, client=client)
    for notice in prepared.notices:
        console.print(f"[yellow]{inert(notice.text)}[/yellow]")
    overrides: dict[str, Any] = {
        k: v for k, v in (("agent_max_steps", max_steps), ("model_id", model)) if v
    }
    settings = dataclasses.replace(prepared.settings, **overrides)
    from lsp_agent.models.factory import check_model_reachable

    problem = check_model_reachable(settings.model_config())
    if problem:
        console.print(f"[red]{problem}[/red]")
        return EXIT_FAILURE
    root = repo.resolve()
    job = JobRequest(
        "",
        settings,
        DiskWorkspace(root),
        approvals=approval_gate(yes, console, interactive),
        writer=DiskPatchWriter(root),
        progress=lambda event: print_progress(console, event),
        client=client,
    )
    if task:
        result = run_task(job, task)
        print_result(console, result)
        return EXIT_OK if result.ok else EXIT_FAILURE
    if not interactive:
        console.print("[red]no TASK given and no terminal for an interactive session[/red]")
        return EXIT_USAGE
    where, model_id = inert(str(repo.resolve())), inert(settings.model_id)
    console.print(f"lsp-agent on {where} with {model_id}. Empty line to quit.")
    while True:
        try:
            line = input("task> ").strip()
        except EOFError:
            return EXIT_OK
        if not line:
            return EXIT_OK
        print_result(console, run_task(job, line))
