"""A PNG chart of the suite's results: pass rate per level, one bar per model in each group.

Uses matplotlib's object API with the Agg canvas (no pyplot, no display, no global backend
switch), imported only when a chart is asked for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

BAR_GROUP_WIDTH = 0.8


def write_chart(figures: dict[str, Any], path: Path) -> Path:
    """Draw `figures` (the suite's JSON) to `path` as a PNG; return the path."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    results = {
        model: data for model, data in figures.get("results", {}).items() if "levels" in data
    }
    keys: list[str] = list(figures.get("levels") or [])
    if not keys:
        keys = sorted({key for data in results.values() for key in data["levels"]})
    names = {
        key: data["levels"][key]["name"]
        for data in results.values()
        for key in keys
        if key in data["levels"]
    }
    figure = Figure(figsize=(max(6.0, 1.1 * len(keys) + 2), 4.6), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    width = BAR_GROUP_WIDTH / max(1, len(results))
    for index, (model, data) in enumerate(results.items()):
        rates = [100 * data["levels"].get(key, {}).get("pass_rate", 0.0) for key in keys]
        total = data["total"]
        label = f"{model} ({total['passed']}/{total['runs']} runs passed)"
        offsets = [i - BAR_GROUP_WIDTH / 2 + width * (index + 0.5) for i in range(len(keys))]
        bars = axes.bar(offsets, rates, width=width, label=label)
        axes.bar_label(bars, labels=[f"{rate:.0f}" for rate in rates], fontsize=7, padding=1)
    axes.set_xticks(range(len(keys)), [f"{key}\n{names.get(key, '')}" for key in keys])
    axes.tick_params(axis="x", labelsize=7)
    axes.set_ylim(0, 112)
    axes.set_ylabel("pass rate (%)")
    axes.set_title(
        f"lsp-agent compliance suite: pass rate per level "
        f"({figures.get('runs')} run(s) each, {figures.get('date')})",
        fontsize=10,
    )
    axes.legend(
        fontsize=8,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.2),
        ncol=min(3, max(1, len(results))),
        frameon=False,
    )
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format="png")
    return path
