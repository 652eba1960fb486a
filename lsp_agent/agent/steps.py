"""What both agent modes do around each step: the final-answer check, the step notes, and the
monitor that enforces the context budget, reports progress and honours cancel and loop stops.

`StepMonitor` is the `ActionStep` callback of every agent the builder makes
(`agent.factory.build_agent`); a mode says only what is its own: which tools a step called,
the messages a step adds to the history, and the step's progress line.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from smolagents.memory import ActionStep
from smolagents.models import ChatMessage

from lsp_agent.agent.context_budget import ContextBudget
from lsp_agent.agent.job_types import ProgressEvent
from lsp_agent.agent.observations import is_error_observation, summarize_observation
from lsp_agent.agent.prompts import step_notes
from lsp_agent.models.messages import action_messages
from safety.errors import propose_patch_call
from tools.base import ToolContext
from tools.patches import next_step, still_failing

STEP_LIMIT_PROGRESS = "Step limit reached: the run ends here, with a summary of what was done."
PLACEHOLDER_ANSWERS = {"", "final_answer", "answer", "...", "<your answer>", "none", "null"}
# Ids that name something but say nothing: patch p1, approval a1, job 3 (or its token).
BARE_IDS = (
    ("a patch id", re.compile(r"p\d+", re.IGNORECASE)),
    ("an approval id", re.compile(r"a\d+", re.IGNORECASE)),
    ("a job id", re.compile(r"(lsp-agent/)?job[\s/#_-]*\d+", re.IGNORECASE)),
)
# A template's slot left in an answer: [owner_name], [owner-name], <file_name>, {patch_id},
# or one of our calls' slots, <the exact text to change> (not a Markdown link's text,
# `[the docs](…)`, nor an HTML tag).
TEMPLATE_SLOT = re.compile(
    r"[\[<{]\s*[a-z]+(?:[_-][a-z]+)+\s*[\]>}](?!\()|<[a-z]+(?: [a-z]+)+>", re.IGNORECASE
)
# Our own instruction copied as the answer: "… Next: fix the bug in report.py with
# propose_patch(path="report.py", …)" (Qwen2.5-Coder-1.5B on L8, after run_tests' reply).
NEXT_STEP = re.compile(r"\bNext: [^\n]*?\b([a-z_]+)\(")
SAY_IT_IN_WORDS = (
    'Call final_answer(answer="<what you found and did, in plain words>") with your '
    "actual answer for the user."
)


def empty_answer_reason(text: str, tool_names: Collection[str] = ()) -> str | None:
    """Why `text` is not an answer (a placeholder, a bare id, a tool name, a tool reply's
    "Next: …" instruction), or None.

    A number or word that answers the task (`42`, `yes`) is an answer."""
    stripped = text.strip()
    if stripped.lower() in PLACEHOLDER_ANSWERS or stripped.startswith("<"):
        return "the final answer is empty or a placeholder"
    bare = _bare(stripped)
    for what, pattern in BARE_IDS:
        if pattern.fullmatch(bare):
            return (
                f"the final answer is only {what} ({bare}); it tells the user nothing "
                "about what was found or done"
            )
    if bare in tool_names:
        return f"the final answer is only the name of the tool {bare}, not an answer"
    if any(m.group(1) in tool_names for m in NEXT_STEP.finditer(stripped)):
        return (
            "the final answer repeats the next step a tool's reply gave; take that step "
            "first, then answer in your own words"
        )
    slot = TEMPLATE_SLOT.search(stripped)
    if slot:
        return (
            f"the final answer holds a placeholder, {slot.group(0)}, where a value belongs; "
            "find the value with a tool first"
        )
    return None


def _bare(text: str) -> str:
    """An answer without its quotes, backticks and closing dot."""
    return text.strip().strip("'\"`.").strip()


def answer_is_real(final_answer: Any, memory: Any, agent: Any = None) -> bool:
    """A final answer must say something: not empty, not a placeholder, a bare id or a
    tool's name. Refused answers become the step's error, which the model sees."""
    tools = getattr(agent, "tools", None) or {}
    reason = empty_answer_reason(str(final_answer), tuple(tools))
    if reason is not None:
        raise ValueError(f"{reason}. {SAY_IT_IN_WORDS}")
    return True


# A name written as code: an identifier with an underscore (RESTOCK_AMOUNT, total_stock),
# with or without a call's parentheses or dotted parts.
_CODE_NAME = re.compile(r"[A-Za-z_][\w.]*_[\w.]*(?:\([\w, ]*\))?")


def names_only_what_was_asked(task: str) -> Callable[..., bool]:
    """A final-answer check: an answer that is only a name the task gave is refused, as it
    says nothing found. Asked for "the value of RESTOCK_AMOUNT", Qwen2.5-Coder-1.5B through
    llama-server answered "RESTOCK_AMOUNT" (L3, 2 runs of 2)."""

    def names_only_what_was_asked(final_answer: Any, memory: Any, agent: Any = None) -> bool:
        bare = _bare(str(final_answer))
        if not _CODE_NAME.fullmatch(bare):
            return True
        if re.search(rf"(?<![\w.]){re.escape(bare)}(?![\w(])", task) is None:
            return True
        raise ValueError(
            f"the final answer only repeats {bare}, a name the task gave; answer with what "
            f"you found about it (its value, where it is, what it does), read with a tool "
            f"first. {SAY_IT_IN_WORDS}"
        )

    return names_only_what_was_asked


# A sentence that asks for a change to code: "Fix it.", "Find and fix the bug in calc.py.",
# "Please implement the stub …", "Make the tests pass." (not "How do I fix it?", nor the
# verbs that also ask for an answer: "add 2 and 40", "make a list of the files").
_IN_SENTENCE = r"(?:[^.?!\n]|\.(?=\w))*"  # a dot inside a word (calc.py) does not end it
_ASKS_FOR_CHANGE = re.compile(
    r"(?:^|[.!:;\n]\s*)(?:please\s+|then\s+)?(?:\w+\s+and\s+)?"
    rf"(?:(?:fix|implement|repair|refactor|rename)\b|make\s{_IN_SENTENCE}\bpass\b)"
    rf"{_IN_SENTENCE}(?:[.!\n]|$)",
    re.IGNORECASE,
)


def asks_for_change(task: str) -> bool:
    """Whether a sentence of `task` tells the agent to change code (not a question)."""
    return _ASKS_FOR_CHANGE.search(task.strip()) is not None


# "Propose a fix, but do not apply it": the user keeps applying to themselves.
_PROPOSE_ONLY = re.compile(
    r"\b(?:do not|don't|dont|never|without)\s+(?:apply|applying)\b"
    r"|\b(?:only|just)\s+(?:propose|suggest)",
    re.IGNORECASE,
)


def propose_only(task: str) -> bool:
    """Whether `task` asks for a proposal that the user applies themselves."""
    return _PROPOSE_ONLY.search(task) is not None


def change_before_answer(context: ToolContext, task: str) -> Callable[..., bool]:
    """A final-answer check for a task that asks for a change: an answer given while nothing
    changed, or while the change leaves tests failing, is refused once for each reason, with
    the call that goes on; the next answer stands.

    Told "total_stock() returns the wrong total. Fix it." with report.py in front of it,
    Qwen2.5-Coder-1.5B answered "The total stock is calculated by iterating over the items
    list starting from the second element" and changed nothing (3 of 3 runs); asked to
    implement grade_school.py, it proposed School and answered without applying it."""
    refused: set[str] = set()

    def change_before_answer(final_answer: Any, memory: Any, agent: Any = None) -> bool:
        if not asks_for_change(task):
            return True
        reason, why = _unfinished_change(context)
        if not reason or reason in refused:
            return True
        refused.add(reason)
        raise ValueError(why)

    return change_before_answer


def _unfinished_change(context: ToolContext) -> tuple[str, str]:
    """Why the change a task asks for is not made yet (a kind, and the words with the call
    that goes on), or ("", "")."""
    patches = context.patches.all()
    if not patches:
        files = context.task_files
        call = propose_patch_call(files[0] if files else "<file>")
        return "no patch", (
            "the task asks for a change to the code, and no patch was proposed: nothing has "
            f"changed yet. Propose the change first: {call}, then apply_patch. If no change "
            "is needed, call final_answer again and say why."
        )
    applied = [p for p in patches if p.status == "applied"]
    latest = patches[-1]
    if not applied and latest.status == "proposed":
        step = next_step(latest.id, latest.status, latest.check, latest.files)
        return "not applied", (
            f"{latest.id} is proposed, not applied: nothing has changed yet. {step} If no "
            "change is needed, call final_answer again and say why."
        )
    still = still_failing(applied[-1].check) if applied and latest is applied[-1] else ""
    if still:
        return "still failing", (
            f"{latest.id} is applied, and the change is not done: {still} Change the code "
            "again so that they pass. If they cannot pass, call final_answer again and say why."
        )
    return "", ""


def job_notes(context: ToolContext, step: int, max_steps: int) -> str:
    """The note after the history: the patches so far, what to do next, steps left."""
    patches = context.patches
    latest = patches.latest()
    hint = next_step(latest.id, latest.status, latest.check, latest.files) if latest else ""
    return step_notes(step, max_steps, patches.summary(), hint)


@dataclass(eq=False)
class StepMonitor:
    """After each step: enforce the budget, report progress, stop on cancel or loops.

    Tool-calling mode as it is; code mode overrides `step_tools`, `step_messages` and
    `step_line` (a step there runs code that may call several tools)."""

    context: ToolContext
    budget: ContextBudget
    on_progress: Callable[[ProgressEvent], None]
    cancel: threading.Event
    max_steps: int
    final_answer_given: bool = field(default=False, init=False)
    tools_used: list[str] = field(default_factory=list, init=False)
    steps_taken: int = field(default=0, init=False)
    steps_before: int = field(default=0, init=False)  # a later attempt's: the earlier steps
    # ends an attempt that stopped getting closer (`attempt_patience`; set by the builder)
    patience: Callable[[list[str]], None] | None = field(default=None, init=False)

    def follow(self, earlier: StepMonitor, steps_before: int) -> None:
        """Count on from `earlier`'s attempt, which took `steps_before` of the job's steps:
        progress says step 12 of 25, not 1 of 14, and the job's tools and steps add up."""
        self.tools_used[:0] = earlier.tools_used
        self.steps_taken += earlier.steps_taken
        self.steps_before = steps_before

    def __call__(self, step: ActionStep, agent: Any) -> None:
        total = self.steps_before + self.max_steps
        if step.step_number > self.max_steps:
            # smolagents' closing summary after the last step: not a step of its own.
            self.on_progress(ProgressEvent(total, total, None, STEP_LIMIT_PROGRESS, "info"))
            return
        self.context.state.begin_step()
        calls = self.step_tools(step, agent)
        self.tools_used.extend(calls)
        if step.is_final_answer:
            self.final_answer_given = True
        measured = getattr(getattr(agent, "model", None), "chars_per_token", None)
        if isinstance(measured, float):  # the model's own count of its requests
            self.budget.chars_per_token = measured
        # smolagents appends `step` to memory only after the callbacks: count it too.
        self.budget.enforce(
            [*agent.memory.steps, step],
            lambda: agent.write_memory_to_messages() + self.step_messages(agent, step),
        )
        tool, line, ok = self.step_line(step, calls)
        number = self.steps_before + step.step_number
        self.on_progress(ProgressEvent(number, total, tool, line or "thinking", "step", ok=ok))
        if self.patience is not None and not step.is_final_answer:
            self.patience(calls)
        if self.cancel.is_set() or self.context.state.stopped:
            agent.interrupt()

    # ---- what a mode says of its own steps ---------------------------------------------------
    def step_tools(self, step: ActionStep, agent: Any) -> list[str]:
        """The tools `step` called (counted in `steps_taken` when it called one)."""
        calls = [step.tool_calls[0].name] if step.tool_calls else []
        self.steps_taken += bool(calls)
        return calls

    def step_messages(self, agent: Any, step: ActionStep) -> list[ChatMessage]:
        """The messages `step` adds to the history (it is not in memory yet)."""
        return action_messages(step)

    def step_line(self, step: ActionStep, calls: list[str]) -> tuple[str | None, str, bool]:
        """(tool shown, progress line, whether the step went well)."""
        observation = str(step.error) if step.error else (step.observations or "")
        ok = step.error is None and not is_error_observation(observation)
        return (calls[0] if calls else None), summarize_observation(observation), ok
