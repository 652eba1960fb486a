"""`lsp-agent bench models --model ID [--model ID2 …] [--levels L0,L3] [--chart PNG]
[--agent-type code] [--planning-interval N] [--subagents explorer]`.

The small-model compliance suite (`lsp_agent.benchmarks.compliance`): eleven levels of
coding tasks on a shipped fixture repository, each checked on its outcome. `--model
scripted` (the default) plays the levels' reference solutions — deterministic, seconds,
what CI runs; any other id is built like `MODEL_ID` (`embedded`, `ollama_chat/…`,
`openai/…` with `MODEL_API_BASE`). `--serve-llama-cpp` starts llama-cpp-python's server with
SmolLM2 on 127.0.0.1 (`lsp_agent.testing.llama_cpp_server`) and adds it as `openai/smollm2`;
set `MODEL_CONSTRAINED_CALLS=false` to measure a server without constrained calls.
`--agent-type code` runs the levels in code mode (needs the Docker sandbox; `scripted` then
plays the code-form references, `compliance.code_reference`). `--planning-interval N` and
`--subagents explorer` run every level in that agent mode (`compliance.modes`: the scripted
references gain plan turns and, where delegating fits, an explorer call; in code mode, plan
turns only).
Progress goes to stderr, the tables to stdout.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from dotenv import dotenv_values

from lsp_agent.benchmarks.compliance.code_reference import code_reference
from lsp_agent.benchmarks.compliance.levels import LEVELS, Level, select_levels
from lsp_agent.benchmarks.compliance.modes import DEFAULT_MODE, AgentMode
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
from lsp_agent.benchmarks.served_models import Served, start_servers
from lsp_agent.settings import Settings, load_settings
from safety.host_env import user_environ

__all__ = ["measure", "print_report"]

MAX_PLANNING_INTERVAL = 100  # as the AGENT_PLANNING_INTERVAL setting allows
SUBAGENTS = ("explorer",)


def phoenix_requested(workspace: Path) -> bool:
    """Whether the user set PHOENIX_ENABLED (environment or `.env`); else the suite skips it."""
    if "PHOENIX_ENABLED" in user_environ():
        return True
    dotenv = workspace / ".env"
    return dotenv.is_file() and "PHOENIX_ENABLED" in dotenv_values(dotenv)


def command_line(
    runs: int,
    models: tuple[str, ...],
    levels: tuple[Level, ...],
    served: Mapping[str, Served] | None = None,
    *,
    agent_type: str = "tool_calling",
    mode: AgentMode = DEFAULT_MODE,
) -> str:
    served = served or {}
    words = ["lsp-agent", "bench", "models", "--runs", str(runs)]
    if agent_type != "tool_calling":
        words += ["--agent-type", agent_type]
    words += mode.arguments()
    for model_id in models:
        if model_id not in served:
            words += ["--model", model_id]
    for server in served.values():
        words += server.flag
    if len(levels) < len(LEVELS):
        words += ["--levels", ",".join(level.key for level in levels)]
    return " ".join(words)


def _model_for_level(
    model_id: str, agent_type: str = "tool_calling", mode: AgentMode = DEFAULT_MODE
) -> ModelForLevel:
    if model_id == SCRIPTED:
        if agent_type == "code":
            return lambda level: code_reference(level, mode)
        return lambda level: scripted_reference(level, mode)
    return lambda level: None  # built from the settings' model id by the runtime


def agent_mode(options: BenchOptions) -> AgentMode:
    """The mode `--planning-interval` and `--subagents` ask for (BenchError if unknown)."""
    if not 0 <= options.planning_interval <= MAX_PLANNING_INTERVAL:
        raise BenchError(f"--planning-interval must be 0..{MAX_PLANNING_INTERVAL}", exit_status=2)
    unknown = [name for name in options.subagents if name not in SUBAGENTS]
    if unknown:
        raise BenchError(
            f"unknown sub-agent {unknown[0]!r}; choose from: {', '.join(SUBAGENTS)}",
            exit_status=2,
        )
    return AgentMode(options.planning_interval, tuple(dict.fromkeys(options.subagents)))


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


def _check_code_mode(settings: Settings) -> None:
    """Code mode needs the Docker sandbox; without it every level would silently run in
    tool-calling mode, so the bench refuses instead."""
    from sandbox.code import code_mode_problem

    problem = code_mode_problem(settings.sandbox_config())
    if problem:
        raise BenchError(f"--agent-type code cannot run here: {problem}")


def _check_reachable(settings: Settings) -> None:
    from lsp_agent.models.factory import check_model_reachable

    problem = check_model_reachable(settings.model_config())
    if problem:
        raise BenchError(f"model {settings.model_id}: {problem}")


def measure(runs: int, options: BenchOptions) -> Figures:
    """Run the chosen levels `runs` times per model; the suite's JSON (see `report`)."""
    with ExitStack() as stack:
        return _measure(runs, options, start_servers(stack, options))


def _measure(runs: int, options: BenchOptions, served: dict[str, Served]) -> Figures:
    try:
        levels = select_levels(options.levels)
    except ValueError as exc:
        raise BenchError(str(exc), exit_status=2) from None
    mode = agent_mode(options)
    models = options.models or (() if served else (SCRIPTED,))
    models = (*models, *(m for m in served if m not in models))
    workspace = Path.cwd()
    base, _ = load_settings(workspace=workspace)
    keep_phoenix = phoenix_requested(workspace)
    base = dataclasses.replace(base, agent_type=options.agent_type)
    if options.agent_type == "code":
        _check_code_mode(base)
    settings = {m: mode.apply(suite_settings(base, m, keep_phoenix=keep_phoenix)) for m in models}
    for model_id, server in served.items():
        settings[model_id] = dataclasses.replace(settings[model_id], model_api_base=server.api_base)
    for model_id in models:
        if model_id != SCRIPTED:
            _check_reachable(settings[model_id])
    results: dict[str, dict[str, Any]] = {}
    for model_id in models:
        stats = run_suite(
            levels,
            runs,
            settings[model_id],
            _model_for_level(model_id, options.agent_type, mode),
            on_run=_progress(model_id, runs),
        )
        results[model_id] = model_results(stats)
    figures = suite_json(
        results,
        runs=runs,
        levels=[level.key for level in levels],
        command=("" if base.model_constrained_calls else "MODEL_CONSTRAINED_CALLS=false ")
        + command_line(
            runs,
            models,
            levels,
            served,
            agent_type=options.agent_type,
            mode=mode,
        ),
    )
    figures["agent_type"] = options.agent_type
    figures["mode"] = mode.label()
    if options.chart is not None:
        from lsp_agent.benchmarks.compliance.chart import write_chart

        print(f"[models] chart: {write_chart(figures, options.chart)}", file=sys.stderr)
    return figures
