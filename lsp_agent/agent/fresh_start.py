"""A job's next attempt: after a loop stop, an attempt that stopped getting closer, or an
answer given with the change not made, the same task again with an empty history.

Qwen2.5-Coder-1.5B, asked to implement an Exercism stub, often writes a version whose tests
fail and then writes it again, or reads the same file again, until the loop guard stops the
job with steps and time to spare: 11 of its 16 failures among the edit bench's 20 exercises
ended so, after 129 to 471 of their 600 seconds. By then its history is full of its own
failed attempts, and a small model repeats what its history holds. aider's benchmark gives a
model a second try with the test output (1 of aider's 4 passes on that sample came on it).
Every pass of lsp-agent's own on that sample came from a first version: a fresh draw is
worth more than a long repair (`attempt_patience`, which ends an attempt whose versions
stop passing more tests).

The same holds for a job that answers with its change not made, after the answer check
(`steps.change_before_answer`) refused such an answer once: through llama-server,
Qwen2.5-Coder-1.5B told "total_stock() returns the wrong total. Fix it." proposed the
function with its bug kept, was told that the tests fail as before, and answered, twice, in
4 of 10 steps (the suite's L8, 3 runs of 3).

So, when the loop guard (never a cancel or the step limit) or the attempt's patience stops
an attempt, or the first attempt answers (an answer starts again once per job: a model that
says twice there is nothing to change is heard), and the job asks for a change (not "only
propose"), the change is not made (no applied patch without failing tests, no passing
proposal for the closing offer), the user rejected none of its patches and at least
`MIN_STEPS` steps are left, the agent is built again and runs with the steps left on the
same task: the files it names read as they are now, and a note says what the earlier
attempts left (the latest patch, or after a patience stop the job's best version, with its
failing tests and, for a loop-stopped proposal never applied that fixed some of them, the
file as it had it). Each later attempt decodes at `ATTEMPT_TEMPERATURES` (a model that
varies with temperature): the same prompt decoded near-greedily gives the same version
again. The step budget is the job's: a later attempt never runs a step the user did not
allow. The patches, the sandbox, the policy and every guard stay as they were; the run
state forgets only its loop history (`AgentState.start_again`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from lsp_agent.agent.attempt_patience import best_patch
from lsp_agent.agent.closing_offer import change_made, passing_proposal
from lsp_agent.agent.factory import AgentRun, BuiltAgent
from lsp_agent.agent.job_types import ProgressEvent
from lsp_agent.agent.steps import asks_for_change, propose_only
from safety.run_state import NO_PROGRESS, STEP_LIMIT
from tools.base import ToolContext
from tools.patches import StoredPatch, fixes_none, still_failing

MIN_STEPS = 4
# The temperatures of the second, third, … attempt (the last for every later one).
ATTEMPT_TEMPERATURES = (0.6, 0.8)
SHOWN_TEXT_CHARS = 4000  # a proposal's text is shown up to this size


@dataclass(frozen=True)
class NextAttempt:
    """Why a job starts again: `note` for the model (after the task), `notice` for the user,
    `number` of this attempt (2 for the second)."""

    note: str
    notice: str
    number: int = 2


def next_attempt(
    context: ToolContext, task: str, steps_left: int, answered: bool, attempts: int = 1
) -> NextAttempt | None:
    """The job's next attempt, or None when it gets none (see the module's docstring;
    `answered`: the last attempt ended with a final answer; `attempts`: how many the job
    has run)."""
    signal, stopped = context.state.stop_signal, context.state.stopped
    looped = stopped and signal is not None and signal.kind != STEP_LIMIT
    if not looped and (stopped or not answered or attempts > 1):
        return None
    if steps_left < MIN_STEPS or not asks_for_change(task) or propose_only(task):
        return None
    if change_made(context) or passing_proposal(context) is not None:
        return None
    if any(patch.status == "rejected" for patch in context.patches.all()):
        return None  # the user said no to a change: not asked again unbidden
    number = attempts + 1
    patch = context.patches.latest()
    fresh_draw = looped and signal is not None and signal.kind == NO_PROGRESS
    if fresh_draw:
        ended = "stopped: its last versions left no fewer tests failing."
        notice = "The agent's versions stopped passing more tests"
        patch = best_patch(context) or patch
    elif looped and signal is not None:
        why = signal.hint.removeprefix("Stopping the run: ")
        ended = f"was stopped because it went round in circles ({why})"
        notice = "The agent went round in circles and was stopped"
    else:
        ended = "answered with the change not made."
        notice = "The agent answered without making the change the task asks for"
    earlier = "A first attempt" if number == 2 else f"Attempt {attempts}"
    note = (
        f"{earlier} at this task {ended} This is attempt {number}, with a fresh start "
        f"and the {steps_left} steps left. Do not repeat what earlier attempts did."
    )
    return NextAttempt(
        f"{note}{_patch_note(context, patch, fresh_draw)}" if patch else note,
        f"{notice}; it starts again on the task with an empty history and the {steps_left} "
        "steps left.",
        number,
    )


def _patch_note(context: ToolContext, patch: StoredPatch, fresh_draw: bool = False) -> str:
    """What an earlier attempt's patch left: its status, its failing tests and, for a
    proposal never applied that fixed some of them, the files as it had them; not when a
    `fresh_draw` is wanted (after a patience stop, `patch` is the job's best version): a
    version shown is a version written again."""
    files = ", ".join(patch.files)
    failing = still_failing(patch.check, patch.id)
    if patch.status == "applied":
        told = f" It applied {patch.id} ({files}), which is in the files now."
        return f"{told} {failing} Change the code so that they pass." if failing else told
    which = "best version" if fresh_draw else "last patch"
    told = f" Its {which}, {patch.id} ({files}), is {patch.status}, not applied."
    if failing:
        told += f" {failing}"
    if patch.status != "proposed":
        return told
    if fresh_draw:
        return f"{told} Write the whole of it again, a different version."
    if fixes_none(patch.check):
        # not shown: told "report.py as p1 has it" (total_stock with its bug kept, its
        # docstring left out), Qwen2.5-Coder-1.5B through llama-server wrote the right loop
        # but took p1's text as the `old` to replace, which the file does not hold
        return f"{told} Write a different change."
    shown = [
        f"{f.path} as {patch.id} has it:\n```\n{f.after.rstrip()}\n```"
        for f in patch.result.files
        if f.after is not None
    ]
    text = "\n\n".join(shown)
    if text and len(text) <= SHOWN_TEXT_CHARS:
        told += f"\n\n{text}\n\nWrite a corrected version."
    return told


def attempt_temperature(number: int) -> float:
    """The temperature attempt `number` (2 or more) decodes at."""
    return ATTEMPT_TEMPERATURES[min(number - 2, len(ATTEMPT_TEMPERATURES) - 1)]


def start_again(
    run: AgentRun,
    earlier: BuiltAgent,
    attempt: NextAttempt,
    build: Callable[[AgentRun], BuiltAgent],
) -> BuiltAgent:
    """The next attempt's agent (`build` makes it) for the steps `earlier` left, the run
    state's loops forgotten, decoding hotter; the user is told why."""
    done = run.context.state.step
    run.progress(ProgressEvent(done, run.max_steps, None, attempt.notice, "notice"))
    run.context.state.start_again()
    if hasattr(run.model, "attempt_temperature"):  # a RobustModel
        run.model.attempt_temperature = attempt_temperature(attempt.number)
    built = build(dataclasses.replace(run, max_steps=run.max_steps - done))
    built.monitor.follow(earlier.monitor, done)
    return built
