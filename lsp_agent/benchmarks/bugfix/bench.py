"""`lsp-agent bench bugfix --model ID [--runs N] [--levels KEY,KEY]`: the bug-fix tasks.

Each run writes one task's module and test file into a fresh git repository, gives the
agent the task as a user types it ("The tests in test_X.py fail. Find and fix the bug in
X.py."), approves what it asks (like `run --yes`; patch checks in the configured sandbox)
and judges the files: fixed when the module is the only file changed and the task's hidden
probe runs cleanly. A run is also counted as **claimed, not fixed** when its final answer
says it fixed, changed or applied something while the probe still fails: the failure the
job's facts beside the answer are there for. `--serve-llama-server` and `--serve-llama-cpp`
start a server as for `bench models`.
"""

from __future__ import annotations

import dataclasses
import re
import statistics
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from lsp_agent.agent.job_types import JobRequest
from lsp_agent.benchmarks.bugfix.tasks import BugfixTask, select_tasks
from lsp_agent.benchmarks.compliance.checks import Outcome, Verdict, fix_check
from lsp_agent.benchmarks.compliance.fixture_repo import make_fixture_repo
from lsp_agent.benchmarks.compliance.report import machine_description, request_lines
from lsp_agent.benchmarks.compliance.suite import (
    JOB_CLIENT,
    RunRecord,
    request_figures,
    run_record,
)
from lsp_agent.benchmarks.runner import BenchError, BenchOptions, Figures
from lsp_agent.benchmarks.served_models import start_servers
from lsp_agent.settings import Settings, load_settings

__all__ = ["claims_a_change", "measure", "print_report"]

CLAIM = re.compile(
    r"\b(fix(ed|es)?|correct(ed)?|resolv(ed|es)?|appl(ied|y)|chang(ed|es)|updat(ed|es))\b", re.I
)
DENIAL = re.compile(r"\b(not|no|couldn't|could not|cannot|can't|unable|failed|without)\b", re.I)


def claims_a_change(answer: str) -> bool:
    """Whether a final answer says it changed something (and does not say it did not)."""
    return bool(CLAIM.search(answer)) and not DENIAL.search(answer)


def run_task_once(task: BugfixTask, settings: Settings) -> RunRecord:
    """One run of `task` on a fresh repository (see the module doc)."""
    from lsp_agent.agent.runtime import run_job
    from tools.approval_gate import AutoApprove
    from tools.patches import DiskPatchWriter
    from tools.workspace import DiskWorkspace

    with tempfile.TemporaryDirectory(prefix="lsp-agent-bugfix-") as tmp:
        files = {task.module: task.source, task.test_file: task.tests}
        repo = make_fixture_repo(Path(tmp).resolve() / task.name, files, only=True)
        task_settings = dataclasses.replace(
            settings,
            agent_max_steps=task.max_steps,
            check_command=f"python -m pytest -q {task.test_file}",
        )
        result = run_job(
            JobRequest(
                task.task,
                task_settings,
                DiskWorkspace(repo),
                approvals=AutoApprove(),
                writer=DiskPatchWriter(repo),
                client=JOB_CLIENT,
            )
        )
        try:
            verdict = fix_check(task.module, task.probe)(Outcome(result, repo))
        except Exception as exc:  # a checker that cannot decide counts as a failure
            verdict = Verdict(False, f"checker error: {type(exc).__name__}: {exc}")
    return run_record(result, verdict)


def _task_json(task: BugfixTask, records: list[RunRecord]) -> dict[str, Any]:
    claimed = [r for r in records if not r.passed and claims_a_change(r.answer)]
    return {
        "task": task.task,
        "runs": len(records),
        "fixed": sum(r.passed for r in records),
        "claimed_not_fixed": len(claimed),
        "steps_mean": round(statistics.fmean(r.steps for r in records), 2),
        "seconds_mean": round(statistics.fmean(r.seconds for r in records), 2),
        **request_figures(records),
        "runs_detail": [dataclasses.asdict(r) for r in records],
    }


def measure(runs: int, options: BenchOptions) -> Figures:
    try:
        tasks = select_tasks(options.levels)
    except ValueError as exc:
        raise BenchError(str(exc), exit_status=2) from None
    base, _ = load_settings(workspace=Path.cwd())
    base = dataclasses.replace(base, phoenix_enabled=False)
    with ExitStack() as stack:
        served = start_servers(stack, options)
        models = (*options.models, *(m for m in served if m not in options.models))
        if not models:
            raise BenchError("name a model: --model ID or --serve-llama-server", exit_status=2)
        results: dict[str, Any] = {}
        for model_id in models:
            settings = dataclasses.replace(base, model_id=model_id)
            if model_id in served:
                settings = dataclasses.replace(settings, model_api_base=served[model_id].api_base)
            per_task: dict[str, Any] = {}
            all_records: list[RunRecord] = []
            for task in tasks:
                records = []
                for index in range(runs):
                    record = run_task_once(task, settings)
                    records.append(record)
                    verdict = "fixed" if record.passed else f"NOT FIXED ({record.reason})"
                    print(
                        f"[bugfix] {model_id} {task.key} run {index + 1}/{runs}: {verdict}, "
                        f"{record.steps} steps, {record.seconds:.1f} s",
                        file=sys.stderr,
                        flush=True,
                    )
                per_task[task.key] = _task_json(task, records)
                all_records += records
            results[model_id] = {"tasks": per_task, "total": _total(per_task, all_records)}
    return {
        "suite": "bugfix",
        "runs": runs,
        "machine": machine_description(),
        "results": results,
    }


def _total(per_task: dict[str, Any], records: list[RunRecord]) -> dict[str, Any]:
    return {
        "runs": len(records),
        "fixed": sum(t["fixed"] for t in per_task.values()),
        "claimed_not_fixed": sum(t["claimed_not_fixed"] for t in per_task.values()),
        "steps": sum(r.steps for r in records),
        "prompt_tokens": sum(r.prompt_tokens for r in records),
        "completion_tokens": sum(r.completion_tokens for r in records),
        "model_calls": sum(r.model_calls for r in records),
        "seconds": round(sum(r.seconds for r in records), 1),
        **request_figures(records),
    }


def print_report(figures: Figures) -> None:
    machine = figures.get("machine", {})
    print(
        f"bench bugfix: {figures.get('runs')} run(s) per task, "
        f"{machine.get('cpus')} CPUs ({machine.get('cpu')})"
    )
    for model_id, results in figures.get("results", {}).items():
        print(f"\nmodel {model_id}\n")
        print("| task | fixed | claimed, not fixed | steps | seconds |")
        print("| --- | --- | --- | --- | --- |")
        for key, task in results["tasks"].items():
            print(
                f"| {key} | {task['fixed']}/{task['runs']} | {task['claimed_not_fixed']} "
                f"| {task['steps_mean']:g} | {task['seconds_mean']:.1f} |"
            )
        total = results["total"]
        print(
            f"| all | {total['fixed']}/{total['runs']} | {total['claimed_not_fixed']} "
            f"| {total['steps']} steps | {total['seconds']:.1f} |"
        )
        for line in request_lines(total):
            print(line)
