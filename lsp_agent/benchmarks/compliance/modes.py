"""Agent modes the suite runs in (`bench models --planning-interval N --subagents explorer`),
and the reference solutions rewritten for them.

- Planning: the scripted model must also answer the planning calls (no tools offered; the
  reply is plain text). `reference_turns` inserts a plan turn before main step 1 and every
  N steps after, naming the steps still to come.
- Explorer: where delegating fits (`EXPLORER_REFERENCES`: a search-and-read question, and
  finding a bug), the reference asks `explorer(task)` first and the sub-agent's turns follow
  that call (the sub-agent shares the model, so its replies come next in the script). Other
  levels keep their reference: the explorer is offered and not used, which measures what
  offering it costs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from lsp_agent.benchmarks.compliance.levels import Level
from lsp_agent.settings import Settings

MainStep = tuple[dict[str, Any], ...]  # a main-agent turn, then the turns of any sub-agent it runs


@dataclass(frozen=True)
class AgentMode:
    """What the suite sets beside the model: planning interval (0 = off) and sub-agents."""

    planning_interval: int = 0
    subagents: tuple[str, ...] = ()

    def apply(self, settings: Settings) -> Settings:
        return dataclasses.replace(
            settings,
            agent_planning_interval=self.planning_interval,
            agent_subagents=self.subagents,
        )

    def label(self) -> str:
        parts = []
        if self.planning_interval:
            parts.append(f"planning every {self.planning_interval}")
        if self.subagents:
            parts.append(f"sub-agents {','.join(self.subagents)}")
        return "; ".join(parts) or "default"

    def arguments(self) -> list[str]:
        """The command-line words that select this mode."""
        words = []
        if self.planning_interval:
            words += ["--planning-interval", str(self.planning_interval)]
        if self.subagents:
            words += ["--subagents", ",".join(self.subagents)]
        return words


DEFAULT_MODE = AgentMode()


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool": tool, "arguments": arguments}


EXPLORER_REFERENCES: dict[str, tuple[MainStep, ...]] = {
    "L3": (
        (
            _call("explorer", task="Which file defines restock, and what is RESTOCK_AMOUNT?"),
            _call("rg_search", pattern="def restock"),
            _call("read_file", path="inventory.py"),
            {"final_answer": "inventory.py defines restock; RESTOCK_AMOUNT = 37."},
        ),
        ({"final_answer": "RESTOCK_AMOUNT is 37 (inventory.py)."},),
    ),
    "L8": (
        (
            _call("explorer", task="Where is total_stock defined, and why is its total wrong?"),
            _call("rg_search", pattern="def total_stock"),
            _call("read_file", path="report.py"),
            {
                "final_answer": "report.py: total_stock loops `for item in items[1:]:`, "
                "so it skips the first item."
            },
        ),
        (
            _call(
                "propose_patch",
                path="report.py",
                old="for item in items[1:]:",
                new="for item in items:",
            ),
        ),
        (_call("apply_patch", patch_id="p1"),),
        ({"final_answer": "total_stock() skipped the first item; it now sums them all."},),
    ),
}


def _describe(step: MainStep) -> str:
    turn = step[0]
    if "text" in turn:  # code mode: a thought, then the code
        thought = str(turn["text"]).splitlines()[0].removeprefix("Thought:").strip()
        return thought[:80] or "Run code."
    if "final_answer" in turn:
        return "Answer with final_answer."
    arguments = turn.get("arguments", {})
    shown = ", ".join(f"{k}={v!r}" for k, v in arguments.items() if isinstance(v, str | int))
    return f"{turn['tool']}({shown[:80]})"


def plan_turn(steps: tuple[MainStep, ...]) -> dict[str, Any]:
    """A short numbered plan of `steps`, as the model would write it."""
    lines = [f"{n}. {_describe(step)}" for n, step in enumerate(steps[:5], start=1)]
    return {"text": "\n".join(lines) + "\n<end_plan>"}


def reference_turns(
    level: Level, mode: AgentMode, reference: tuple[dict[str, Any], ...] | None = None
) -> list[dict[str, Any]]:
    """The level's reference solution as script turns for `mode`. `reference` replaces the
    level's own (code mode's code-form turns, which keep to themselves: the explorer is
    offered there but not used)."""
    steps: tuple[MainStep, ...]
    if reference is not None:
        steps = tuple((turn,) for turn in reference)
    elif "explorer" in mode.subagents and level.key in EXPLORER_REFERENCES:
        steps = EXPLORER_REFERENCES[level.key]
    else:
        steps = tuple((turn,) for turn in level.reference)
    turns: list[dict[str, Any]] = []
    interval = mode.planning_interval
    for index, step in enumerate(steps):
        if interval and index % interval == 0:  # smolagents plans before step 1 + k*N
            turns.append(plan_turn(steps[index:]))
        turns.extend(step)
    return turns


def main_steps(level: Level, mode: AgentMode) -> int:
    """How many steps of the main agent the mode's reference takes."""
    if "explorer" in mode.subagents and level.key in EXPLORER_REFERENCES:
        return len(EXPLORER_REFERENCES[level.key])
    return len(level.reference)
