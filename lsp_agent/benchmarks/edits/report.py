"""The table `bench edits` prints (Markdown, ready for the README) and its PNG chart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

COLUMNS = (
    "agent",
    "passed",
    "pass rate",
    "steps (aider: tries)",
    "model calls",
    "prompt tokens",
    "completion tokens",
    "seconds",
    "seconds per solved",
    "tokens per solved",
)


def _cell(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.1f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def table_rows(agents: dict[str, dict[str, Any]]) -> list[list[str]]:
    rows = []
    for name, f in agents.items():
        passed = f"{f['passed']}/{f['total']}"
        if "passed_first_try" in f:
            passed += f" ({f['passed_first_try']} on try 1)"
        rows.append(
            [
                name,
                passed,
                f"{100 * f['pass_rate']:.1f}%",
                _cell(f["steps"]),
                _cell(f["model_calls"]),
                _cell(f["prompt_tokens"]),
                _cell(f["completion_tokens"]),
                _cell(f["seconds"]),
                _cell(f["seconds_per_solved"]),
                _cell(f["tokens_per_solved"]),
            ]
        )
    return rows


def markdown_table(agents: dict[str, dict[str, Any]]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(row) + " |" for row in table_rows(agents)]
    return "\n".join(lines)


def print_report(figures: dict[str, Any]) -> None:
    setup = figures.get("setup", {})
    sample = setup.get("exercises", [])
    print(f"bench edits: {len(sample)} Exercism Python exercises, model {setup.get('model')}")
    print(f"  {figures.get('command', '')}")
    print()
    print(markdown_table(figures["agents"]))
    common = figures.get("common_exercises")
    if common is not None and len(common) < len(sample):
        print(f"\n{len(common)} of {len(sample)} exercises have a run of every agent so far.")
    failures: dict[str, int] = {}
    for run in figures.get("exercises", []):
        if not run["passed"]:
            key = f"{run['agent']}: {run['reason']}"
            failures[key] = failures.get(key, 0) + 1
    if failures:
        print("\nWhy runs failed (agent: verdict × runs):")
        for key, count in sorted(failures.items()):
            print(f"  {key} × {count}")


def write_chart(figures: dict[str, Any], path: Path) -> Path:
    """Pass rate and seconds per solved exercise, one bar per agent (Agg, no display)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    agents = figures["agents"]
    names = list(agents)
    figure = Figure(figsize=(9.0, 4.0), dpi=100)
    FigureCanvasAgg(figure)
    rate_axes, cost_axes = figure.subplots(1, 2)
    rates = [100 * agents[name]["pass_rate"] for name in names]
    rate_axes.bar(names, rates, color="#4C72B0")
    for index, name in enumerate(names):
        label = f"{agents[name]['passed']}/{agents[name]['total']}"
        rate_axes.annotate(label, (index, rates[index]), ha="center", va="bottom")
    rate_axes.set_ylabel("exercises passed (%)")
    rate_axes.set_ylim(0, 100)
    cost = [agents[name]["seconds_per_solved"] or 0.0 for name in names]
    cost_axes.bar(names, cost, color="#DD8452")
    cost_axes.set_ylabel("seconds per solved exercise")
    setup = figures.get("setup", {})
    figure.suptitle(
        f"Exercism Python, {len(setup.get('exercises', []))} exercises, {setup.get('model')}"
    )
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    return path
