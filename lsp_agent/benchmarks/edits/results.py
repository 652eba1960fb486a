"""One agent's run on one exercise, the figures per agent, and the JSON file they live in.

The JSON (`--output FILE`) is written after every run, so an interrupted bench resumes from
it: runs already in the file (same model, same step limit) are not run again.
`{"agents": {NAME: {"passed", "total", "pass_rate", "seconds", …}}, "exercises": [RUN, …]}`.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OURS = "lsp-agent"


@dataclass(frozen=True)
class ExerciseRun:
    exercise: str
    agent: str
    passed: bool
    reason: str  # the judge's verdict ("passed", "tests failed", …) or why the run failed
    seconds: float  # the agent's whole run (judging not included)
    steps: int  # lsp-agent: agent steps; mini-swe-agent: steps; aider: tries
    model_calls: int
    prompt_tokens: int
    completion_tokens: int
    status: str = ""  # how the agent ended: a job status, mini's exit status, aider's tries
    tests_run: int = 0
    tests_failed: int = 0
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ExerciseRun:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in names})


def _per_solved(total: float, passed: int) -> float | None:
    return round(total / passed, 1) if passed else None


def agent_figures(runs: Iterable[ExerciseRun]) -> dict[str, Any]:
    runs = list(runs)
    passed = sum(run.passed for run in runs)
    seconds = sum(run.seconds for run in runs)
    prompt = sum(run.prompt_tokens for run in runs)
    completion = sum(run.completion_tokens for run in runs)
    figures: dict[str, Any] = {
        "passed": passed,
        "total": len(runs),
        "pass_rate": round(passed / len(runs), 4) if runs else 0.0,
        "seconds": round(seconds, 1),
        "steps": sum(run.steps for run in runs),
        "model_calls": sum(run.model_calls for run in runs),
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "seconds_per_solved": _per_solved(seconds, passed),
        "tokens_per_solved": _per_solved(prompt + completion, passed),
    }
    first_tries = [run.detail["tests_outcomes"][:1] == [True] for run in runs if _tries(run)]
    if first_tries:  # aider: solved on the first try, before it saw the test output
        figures["passed_first_try"] = sum(first_tries)
    return figures


def _tries(run: ExerciseRun) -> bool:
    return bool(run.detail.get("tests_outcomes"))


def summary(runs: Iterable[ExerciseRun], agents: Iterable[str]) -> dict[str, dict[str, Any]]:
    runs = list(runs)
    return {agent: agent_figures(r for r in runs if r.agent == agent) for agent in agents}


def common_exercises(runs: Iterable[ExerciseRun], agents: Iterable[str]) -> list[str]:
    """Exercises every agent has a run of (the fair comparison while a bench is unfinished)."""
    runs = list(runs)
    agents = list(agents)
    names = list(dict.fromkeys(run.exercise for run in runs))
    done = {(run.agent, run.exercise) for run in runs}
    return [name for name in names if all((agent, name) in done for agent in agents)]


class ResumeError(ValueError):
    """The output file holds runs of another configuration; it is not mixed with this one."""


def load_runs(path: Path, setup: Mapping[str, Any]) -> list[ExerciseRun]:
    """The runs already in `path` (none when it does not exist)."""
    if not path.is_file():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    for key, value in setup.items():
        if data.get("setup", {}).get(key) != value:
            raise ResumeError(
                f"{path} holds runs with {key} = {data.get('setup', {}).get(key)!r}, not "
                f"{value!r}: choose another --output, or remove the file to start afresh"
            )
    return [ExerciseRun.from_json(item) for item in data.get("exercises", [])]


def write_runs(
    path: Path, runs: list[ExerciseRun], agents: list[str], setup: Mapping[str, Any]
) -> dict[str, Any]:
    """Write the file (atomically: an interruption never leaves half a file); its content."""
    data = {
        "agents": summary(runs, agents),
        "exercises": [run.to_json() for run in runs],
        "setup": dict(setup),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(partial, path)
    return data


def write_lines(path: Path, items: Iterable[Mapping[str, Any]]) -> None:
    """A JSON Lines transcript: one item per line."""
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
