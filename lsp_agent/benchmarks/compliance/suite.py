"""Run the levels against one model: per level and run, a fresh fixture repository, one agent
job with patches and commands approved (`AutoApprove`, like `run --yes`), then the checker.

Runs are independent: each gets its own temporary copy of the fixture, committed to git.
Patch checks and `run_cmd` / `run_tests` go through the configured sandbox
(`SANDBOX_BACKEND`, default auto: Docker when available, else the local backend), as in a
real job, so a model that runs the tests first is not penalised.
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsp_agent.agent.job_types import ClientInfo, JobRequest, JobResult
from lsp_agent.benchmarks.compliance.checks import Outcome, Verdict
from lsp_agent.benchmarks.compliance.fixture_repo import make_fixture_repo
from lsp_agent.benchmarks.compliance.levels import Level
from lsp_agent.benchmarks.compliance.modes import AgentMode, reference_turns
from lsp_agent.settings import Settings

JOB_CLIENT = ClientInfo("bench", "approve_all")

SCRIPTED = "scripted"  # the model id that means "the levels' reference solutions"
ANSWER_CHARS = 200  # how much of each answer the results keep
PASSING_RATE = 0.5  # a level counts as passed when at least this share of its runs pass

# The model object for one run of a level, or None to build it from the settings' model id.
ModelForLevel = Callable[[Level], Any]


@dataclass(frozen=True)
class RunRecord:
    """One run of one level."""

    passed: bool
    reason: str
    status: str
    steps: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    answer: str
    tools: list[str]  # what the run called, for reading the results (checkers ignore it)
    model_calls: int = 0  # model requests (planning calls and sub-agents' included)
    requests: list[dict[str, Any]] = field(default_factory=list)  # JobResult.model_stats
    facts: list[str] = field(default_factory=list)  # what the job did to the files


def request_figures(records: list[RunRecord]) -> dict[str, Any]:
    """Per model request over `records`: prompt tokens evaluated after each run's first
    request (the rest came from the model's cache; where the model says), tokens generated,
    replies cut at the end of a call or a loop, and replies that ran to `max_tokens`."""
    later = [r for record in records for r in record.requests[1:]]
    evaluated = [r["prompt_evaluated"] for r in later if "prompt_evaluated" in r]
    generated = [
        r.get("generated", r.get("completion_tokens", 0)) for rec in records for r in rec.requests
    ]
    reasons = [r.get("finish_reason") for record in records for r in record.requests]
    return {
        "evaluated_per_request_mean": round(statistics.fmean(evaluated)) if evaluated else None,
        "generated_per_request_mean": round(statistics.fmean(generated)) if generated else 0,
        "replies_cut": sum(reason == "cut" for reason in reasons),
        "replies_at_max_tokens": sum(reason == "length" for reason in reasons),
    }


@dataclass
class LevelStats:
    level: Level
    records: list[RunRecord] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(record.passed for record in self.records)

    @property
    def pass_rate(self) -> float:
        return self.passed / len(self.records) if self.records else 0.0

    def mean(self, name: str) -> float:
        values = [float(getattr(record, name)) for record in self.records]
        return statistics.fmean(values) if values else 0.0

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.level.name,
            "runs": len(self.records),
            "passed": self.passed,
            "pass_rate": round(self.pass_rate, 3),
            "steps_mean": round(self.mean("steps"), 2),
            "max_steps": self.level.max_steps,
            "reference_steps": len(self.level.reference),
            "prompt_tokens_mean": round(self.mean("prompt_tokens")),
            "completion_tokens_mean": round(self.mean("completion_tokens")),
            "model_calls_mean": round(self.mean("model_calls"), 2),
            "seconds_mean": round(self.mean("seconds"), 2),
            **request_figures(self.records),
            "runs_detail": [dataclasses.asdict(record) for record in self.records],
        }


def model_results(stats: list[LevelStats]) -> dict[str, Any]:
    """One model's results as JSON: per level, and totals over every run."""
    records = [record for level in stats for record in level.records]
    return {
        "levels": {level.level.key: level.as_json() for level in stats},
        "total": {
            "runs": len(records),
            "passed": sum(r.passed for r in records),
            "pass_rate": round(sum(r.passed for r in records) / len(records), 3)
            if records
            else 0.0,
            "levels_passed": sum(level.pass_rate >= PASSING_RATE for level in stats),
            "levels": len(stats),
            "steps": sum(r.steps for r in records),
            "prompt_tokens": sum(r.prompt_tokens for r in records),
            "completion_tokens": sum(r.completion_tokens for r in records),
            "model_calls": sum(r.model_calls for r in records),
            "seconds": round(sum(r.seconds for r in records), 1),
            **request_figures(records),
        },
    }


def scripted_reference(level: Level, mode: AgentMode | None = None) -> Any:
    """The `scripted` model for a level: a `ScriptedModel` playing its reference solution
    (rewritten for `mode`: plan turns, an explorer call; see `compliance.modes`)."""
    from lsp_agent.models.scripted import ScriptedModel

    turns = reference_turns(level, mode) if mode is not None else level.reference
    return ScriptedModel(turns, model_id=SCRIPTED)


def run_record(result: JobResult, verdict: Verdict) -> RunRecord:
    reason = verdict.reason
    if not verdict.passed and result.error:
        reason = f"{reason}; {result.error}"[:ANSWER_CHARS]
    return RunRecord(
        passed=verdict.passed,
        reason=reason,
        status=result.status,
        steps=result.steps,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        seconds=round(result.duration_s, 2),
        answer=result.answer[:ANSWER_CHARS],
        tools=list(result.tools_used),
        model_calls=result.model_calls,
        requests=list(result.model_stats),
        facts=list(result.facts),
    )


def write_mcp_config(path: Path) -> str:
    """An `MCP_CONFIG` file offering the suite's own MCP server as `releases` (trusted)."""
    server = {
        "command": sys.executable,
        "args": ["-m", "lsp_agent.benchmarks.compliance.mcp_server"],
        "trust": True,
    }
    path.write_text(json.dumps({"mcpServers": {"releases": server}}), encoding="utf-8")
    return str(path)


def run_level_once(level: Level, settings: Settings, model: Any = None) -> RunRecord:
    """One run of `level` on a fresh fixture repository; `model=None` builds it from settings
    (what a model server refuses is learnt once per process: `agent.services`)."""
    from lsp_agent.agent.runtime import run_job
    from tools.approval_gate import AutoApprove
    from tools.patches import DiskPatchWriter
    from tools.workspace import DiskWorkspace

    with tempfile.TemporaryDirectory(prefix="lsp-agent-compliance-") as tmp:
        repo = make_fixture_repo(Path(tmp).resolve() / "stockroom", dict(level.files))
        mcp_config = write_mcp_config(Path(tmp) / "mcp.json") if level.mcp else ""
        level_settings = dataclasses.replace(
            settings,
            agent_max_steps=level.max_steps,
            check_command=level.check_command,
            mcp_config=mcp_config,
        )
        result = run_job(
            JobRequest(
                level.task,
                level_settings,
                DiskWorkspace(repo),
                approvals=AutoApprove(),
                writer=DiskPatchWriter(repo),
                client=JOB_CLIENT,
                model=model,
            )
        )
        try:
            verdict = level.check(Outcome(result, repo))
        except Exception as exc:  # a checker that cannot decide counts as a failure
            verdict = Verdict(False, f"checker error: {type(exc).__name__}: {exc}")
    return run_record(result, verdict)


def run_suite(
    levels: tuple[Level, ...],
    runs: int,
    settings: Settings,
    model_for_level: ModelForLevel,
    on_run: Callable[[Level, int, RunRecord], None] = lambda level, index, record: None,
) -> list[LevelStats]:
    """Run every level `runs` times; `on_run(level, run index, record)` after each run."""
    stats = []
    for level in levels:
        level_stats = LevelStats(level)
        for index in range(runs):
            record = run_level_once(level, settings, model_for_level(level))
            level_stats.records.append(record)
            on_run(level, index, record)
        stats.append(level_stats)
    return stats


def suite_settings(base: Settings, model_id: str, *, keep_phoenix: bool) -> Settings:
    """`base` for the suite: this model, and Phoenix export only if the user asked for it."""
    return dataclasses.replace(
        base, model_id=model_id, phoenix_enabled=base.phoenix_enabled and keep_phoenix
    )
