"""The suite's results as JSON (several models side by side) and as Markdown tables.

JSON shape: `{"suite": "compliance", "command", "date", "machine", "runs", "levels",
"results": {MODEL_ID: {"levels": {"L0": {...}}, "total": {...}}}}` — per level: runs,
passed, pass_rate, steps_mean, max_steps, reference_steps, prompt/completion tokens and
seconds (means per run), and every run's record (`runs_detail`).
"""

from __future__ import annotations

import datetime
import os
import platform
from pathlib import Path
from typing import Any

SUITE = "compliance"


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_description() -> dict[str, Any]:
    return {
        "cpus": os.cpu_count(),
        "cpu": cpu_name(),
        "system": f"{platform.system()} {platform.release()} {platform.machine()}",
        "python": platform.python_version(),
    }


def suite_json(
    results: dict[str, dict[str, Any]], *, runs: int, levels: list[str], command: str
) -> dict[str, Any]:
    return {
        "suite": SUITE,
        "command": command,
        "date": datetime.date.today().isoformat(),
        "machine": machine_description(),
        "runs": runs,
        "levels": levels,
        "results": results,
    }


def _passed(passed: int, runs: int) -> str:
    return f"{passed}/{runs} ({100 * passed / runs:.0f}%)" if runs else "-"


def model_table(model_results: dict[str, Any]) -> list[str]:
    """One model's results as Markdown table lines (means per run; totals on the last row)."""
    lines = [
        "| level | what | passed | steps used / max | prompt tokens | completion tokens "
        "| seconds |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for key, level in model_results["levels"].items():
        lines.append(
            f"| {key} | {level['name']} | {_passed(level['passed'], level['runs'])} "
            f"| {level['steps_mean']:g} / {level['max_steps']} "
            f"| {level['prompt_tokens_mean']:,} | {level['completion_tokens_mean']:,} "
            f"| {level['seconds_mean']:.2f} |"
        )
    total = model_results["total"]
    lines.append(
        f"| all | {total['levels_passed']}/{total['levels']} levels passed "
        f"| {_passed(total['passed'], total['runs'])} | {total['steps']} steps "
        f"| {total['prompt_tokens']:,} | {total['completion_tokens']:,} "
        f"| {total['seconds']:.1f} |"
    )
    return lines


def request_lines(total: dict[str, Any]) -> list[str]:
    """Per-request figures (`suite.request_figures`) in words, when there are requests."""
    if not total.get("model_calls"):
        return []
    evaluated = total.get("evaluated_per_request_mean")
    shown = "not reported by the model" if evaluated is None else f"{evaluated:,}"
    return [
        f"per request: prompt tokens evaluated after a run's first request {shown}; "
        f"tokens generated {total.get('generated_per_request_mean', 0):,}; replies cut at "
        f"the end of a call or a loop {total.get('replies_cut', 0)}; replies that ran to "
        f"max_tokens {total.get('replies_at_max_tokens', 0)}"
    ]


def report_lines(figures: dict[str, Any]) -> list[str]:
    machine = figures.get("machine", {})
    lines = [
        f"bench models: compliance suite, {figures.get('runs')} run(s) per level, "
        f"{figures.get('date')}, {machine.get('cpus')} CPUs ({machine.get('cpu')})",
        f"command: {figures.get('command')}",
        f"agent type: {figures.get('agent_type', 'tool_calling')}",
    ]
    if figures.get("mode", "default") != "default":
        lines.append(f"agent mode: {figures['mode']}")
    for model_id, results in figures.get("results", {}).items():
        lines += ["", f"model {model_id}", ""]
        lines += [f"error: {results['error']}"] if "error" in results else model_table(results)
        total = results.get("total", {})
        calls = total.get("model_calls")
        if calls:
            lines.append(f"model calls: {calls} (planning calls and sub-agents included)")
        lines += request_lines(total)
    return lines


def print_report(figures: dict[str, Any]) -> None:
    print("\n".join(report_lines(figures)))
