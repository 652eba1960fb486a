"""`lsp-agent bench models --model ID [--model ID2 …] [--levels L0,L3] [--chart PNG]`.

The small-model compliance suite (`lsp_agent.benchmarks.compliance`): nine levels of
coding tasks on a shipped fixture repository, each checked on its outcome. `--model
scripted` (the default) plays the levels' reference solutions — deterministic, seconds,
what CI runs; any other id is built like `MODEL_ID` (`embedded`, `ollama_chat/…`,
`openai/…` with `MODEL_API_BASE`). Progress goes to stderr, the tables to stdout.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from dotenv import dotenv_values

from lsp_agent.benchmarks.compliance.levels import LEVELS, Level, select_levels
from lsp_agent.benchmarks.compliance.report import print_report, suite_json
from lsp_agent.benchmarks.compliance.suite import (
    SCRIPTED,
    ModelForLevel,
    RunRecord,
    model_results,
    run_suite,
    scripted_reference,
    suite_settings,
)
from lsp_agent.benchmarks.runner import BenchError, BenchOptions, Figures
from lsp_agent.settings import Settings, load_settings

__all__ = ["measure", "print_report"]


def phoenix_requested(workspace: Path) -> bool:
    """Whether the user set PHOENIX_ENABLED (environment or `.env`); else the suite skips it."""
    if "PHOENIX_ENABLED" in os.environ:
        return True
    dotenv = workspace / ".env"
    return dotenv.is_file() and "PHOENIX_ENABLED" in dotenv_values(dotenv)


def command_line(runs: int, models: tuple[str, ...], levels: tuple[Level, ...]) -> str:
    words = ["lsp-agent", "bench", "models", "--runs", str(runs)]
    for model_id in models:
        words += ["--model", model_id]
    if len(levels) < len(LEVELS):
        words += ["--levels", ",".join(level.key for level in levels)]
    return " ".join(words)


def _model_for_level(model_id: str) -> ModelForLevel:
    if model_id == SCRIPTED:
        return scripted_reference
    return lambda level: None  # built from the settings' model id by the runtime


def _progress(model_id: str, runs: int) -> Any:
    def show(level: Level, index: int, record: RunRecord) -> None:
        verdict = "pass" if record.passed else f"FAIL ({record.reason})"
        print(
            f"[models] {model_id} {level.key} run {index + 1}/{runs}: {verdict}, "
            f"{record.steps}/{level.max_steps} steps, {record.seconds:.1f} s",
            file=sys.stderr,
            flush=True,
        )

    return show


def _check_reachable(settings: Settings) -> None:
    from lsp_agent.models.factory import check_model_reachable

    problem = check_model_reachable(settings)
    if problem:
        raise BenchError(f"model {settings.model_id}: {problem}")


def measure(runs: int, options: BenchOptions) -> Figures:
    """Run the chosen levels `runs` times per model; the suite's JSON (see `report`)."""
    try:
        levels = select_levels(options.levels)
    except ValueError as exc:
        raise BenchError(str(exc), exit_status=2) from None
    models = options.models or (SCRIPTED,)
    workspace = Path.cwd()
    base, _ = load_settings(workspace=workspace)
    keep_phoenix = phoenix_requested(workspace)
    settings = {m: suite_settings(base, m, keep_phoenix=keep_phoenix) for m in models}
    for model_id in models:
        if model_id != SCRIPTED:
            _check_reachable(settings[model_id])
    results: dict[str, dict[str, Any]] = {}
    for model_id in models:
        stats = run_suite(
            levels,
            runs,
            settings[model_id],
            _model_for_level(model_id),
            on_run=_progress(model_id, runs),
        )
        results[model_id] = model_results(stats)
    figures = suite_json(
        results,
        runs=runs,
        levels=[level.key for level in levels],
        command=command_line(runs, models, levels),
    )
    if options.chart is not None:
        from lsp_agent.benchmarks.compliance.chart import write_chart

        print(f"[models] chart: {write_chart(figures, options.chart)}", file=sys.stderr)
    return figures
