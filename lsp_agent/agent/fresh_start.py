"""A job's second attempt: after a loop stop, the same task again with an empty history.

Qwen2.5-Coder-1.5B, asked to implement an Exercism stub, often writes a version whose tests
fail and then writes it again, or reads the same file again, until the loop guard stops the
job with steps and time to spare: 11 of its 16 failures among the edit bench's 20 exercises
ended so, after 129 to 471 of their 600 seconds. By then its history is full of its own
failed attempts, and a small model repeats what its history holds. aider's benchmark gives a
model a second try with the test output (1 of aider's 4 passes on that sample came on it).

So, once per job: when the loop guard (never a cancel or the step limit) stops a job that
asks for a change (not "only propose"), the change is not made (no applied patch without
failing tests, no passing proposal for the closing offer) and at least `MIN_STEPS` steps
are left, the agent is built again and runs with the steps left on the same task: the files
it names read as they are now, and a note says what the first attempt left (its latest
patch, that patch's failing tests and, for a proposal never applied, the file as it had
it). The step budget is the job's: a second attempt never runs a step the user did not
allow. The patches, the sandbox, the policy and every guard stay as they were; the run
state forgets only its loop history (`AgentState.start_again`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from lsp_agent.agent.closing_offer import change_made, passing_proposal
from lsp_agent.agent.factory import AgentRun, BuiltAgent
from lsp_agent.agent.job_types import ProgressEvent
from lsp_agent.agent.steps import asks_for_change, propose_only
from safety.run_state import STEP_LIMIT
from tools.base import ToolContext
from tools.patches import StoredPatch, still_failing

MIN_STEPS = 4
SHOWN_TEXT_CHARS = 4000  # a proposal's text is shown up to this size


def second_attempt_note(context: ToolContext, task: str, steps_left: int) -> str | None:
    """The note a second attempt starts with, or None when the job gets none (see the
    module's docstring; the caller checks that it has not had one already)."""
    signal = context.state.stop_signal
    if not context.state.stopped or signal is None or signal.kind == STEP_LIMIT:
        return None
    if steps_left < MIN_STEPS or not asks_for_change(task) or propose_only(task):
        return None
    if change_made(context) or passing_proposal(context) is not None:
        return None
    why = signal.hint.removeprefix("Stopping the run: ")
    note = (
        f"A first attempt at this task was stopped because it went round in circles ({why}) "
        f"This is a second attempt, with a fresh start and the {steps_left} steps left. Do "
        "not repeat what the first attempt did."
    )
    latest = context.patches.latest()
    return f"{note}{_patch_note(context, latest)}" if latest else note


def _patch_note(context: ToolContext, patch: StoredPatch) -> str:
    """What the first attempt's latest patch left: its status, its failing tests and, for a
    proposal never applied, the files as it had them."""
    files = ", ".join(patch.files)
    failing = still_failing(patch.check, patch.id)
    if patch.status == "applied":
        told = f" It applied {patch.id} ({files}), which is in the files now."
        return f"{told} {failing} Change the code so that they pass." if failing else told
    told = f" Its last patch, {patch.id} ({files}), is {patch.status}, not applied."
    if patch.status != "proposed":
        return told
    shown = [
        f"{f.path} as {patch.id} has it:\n```\n{f.after.rstrip()}\n```"
        for f in patch.result.files
        if f.after is not None
    ]
    text = "\n\n".join(shown)
    if failing:
        told += f" {failing}"
    if text and len(text) <= SHOWN_TEXT_CHARS:
        told += f"\n\n{text}\n\nWrite a corrected version."
    return told


def start_again(
    run: AgentRun, first: BuiltAgent, build: Callable[[AgentRun], BuiltAgent]
) -> BuiltAgent:
    """The second attempt's agent (`build` makes it) for the steps `first` left, the run
    state's loops forgotten; the user is told."""
    done = run.context.state.step
    run.progress(
        ProgressEvent(
            done,
            run.max_steps,
            None,
            "The agent went round in circles and was stopped; it starts again on the task "
            f"with an empty history and the {run.max_steps - done} steps left.",
            "notice",
        )
    )
    run.context.state.start_again()
    built = build(dataclasses.replace(run, max_steps=run.max_steps - done))
    built.monitor.follow(first.monitor, done)
    return built
