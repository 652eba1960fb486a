"""`lsp-agent bench NAME`: run one benchmark (or `all`), print figures, optionally write JSON.

Most benchmarks are a function `measure(runs)` returning a flat mapping of figure name to
number, printed one per line. A benchmark registered with `options=True` (`models`, `edits`, …)
is called as `measure(runs, BenchOptions)` and printed by its module's `print_report`; one
registered with `writes_output=True` (`edits`) writes `--output` itself, as it goes.
They are registered by name here and imported only when run.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Figures = dict[str, Any]


@dataclass(frozen=True)
class BenchEntry:
    module: str
    function: str
    runs: int  # default repetitions
    options: bool = False  # called with BenchOptions; printed by the module's print_report
    in_all: bool = True  # part of `bench all`
    writes_output: bool = False  # writes `--output` itself (as it goes), not nested by name


@dataclass(frozen=True)
class BenchOptions:
    """What benches with options read (`bench models --model ID --levels L0,L3 --chart PNG`)."""

    models: tuple[str, ...] = ()
    levels: tuple[str, ...] = ()
    chart: Path | None = None
    serve_llama_cpp: bool = False
    serve_llama_server: str = ""  # bench models: an embedded model's name served by llama-server
    agent_type: str = "tool_calling"  # bench models: AGENT_TYPE for every level; bench edits: ours
    planning_interval: int = 0  # bench models: AGENT_PLANNING_INTERVAL for every run
    subagents: tuple[str, ...] = ()  # bench models: AGENT_SUBAGENTS for every run
    show_prompts: bool = False  # bench prompt: print each mode's fixed prompt text too
    # bench edits: which exercises, which peers beside lsp-agent, limits, the resumable output
    sample: int | None = None
    exercises: tuple[str, ...] = ()
    peers: tuple[str, ...] = ()
    peers_only: bool = False
    max_steps: int | None = None
    timeout_s: float | None = None
    llama_server: Path | None = None
    output: Path | None = None


class BenchError(RuntimeError):
    """A benchmark cannot run as asked (a model unreachable, a bad option): its message is
    printed and the command exits with `exit_status`."""

    def __init__(self, message: str, exit_status: int = 1) -> None:
        super().__init__(message)
        self.exit_status = exit_status


BENCHMARKS: dict[str, BenchEntry] = {
    "tools": BenchEntry("lsp_agent.benchmarks.tools_bench", "measure", 20000),
    "prompt": BenchEntry("lsp_agent.benchmarks.prompt_bench", "measure", 1, options=True),
    "context": BenchEntry("lsp_agent.benchmarks.context_bench", "measure", 30),
    "sandbox": BenchEntry("lsp_agent.benchmarks.sandbox_bench", "measure", 5),
    "code": BenchEntry("lsp_agent.benchmarks.code_bench", "measure", 5),
    "policy": BenchEntry("safety.policy", "benchmark", 2000),
    "lsp": BenchEntry("lsp_agent.benchmarks.lsp_bench", "measure", 200),
    "embedded": BenchEntry("lsp_agent.benchmarks.embedded_bench", "measure", 3),
    "models": BenchEntry("lsp_agent.benchmarks.models_bench", "measure", 3, options=True),
    # Real bug-fix tasks on a real model: minutes per task, so not part of `all`.
    "bugfix": BenchEntry(
        "lsp_agent.benchmarks.bugfix.bench", "measure", 1, options=True, in_all=False
    ),
    # Inline completions on a real model (Qwen2.5-Coder by default): minutes, not in `all`.
    "complete": BenchEntry(
        "lsp_agent.benchmarks.completion.bench", "measure", 8, options=True, in_all=False
    ),
    # The whole demo, repeated: minutes on the embedded model, so not part of `all`.
    "demo": BenchEntry(
        "lsp_agent.benchmarks.demo_bench", "measure", 10, options=True, in_all=False
    ),
    # Exercism exercises beside aider and mini-swe-agent: minutes per exercise and agent.
    "edits": BenchEntry(
        "lsp_agent.benchmarks.edits", "measure", 1, options=True, in_all=False, writes_output=True
    ),
}


def _load(name: str) -> tuple[Callable[..., Figures], Callable[[Figures], None] | None] | str:
    """The bench's function and printer, or why it cannot run (a dependency is missing)."""
    entry = BENCHMARKS[name]
    try:
        module = importlib.import_module(entry.module)
    except ModuleNotFoundError as exc:
        return f"it needs the module {exc.name!r}, which is not installed (run `uv sync`)"
    function = getattr(module, entry.function)
    printer = getattr(module, "print_report", None) if entry.options else None
    return function, printer if callable(printer) else None


def print_figures(name: str, figures: Figures) -> None:
    print(f"bench {name}")
    width = max((len(k) for k in figures), default=0)
    for key, value in figures.items():
        shown = f"{value:.6g}" if isinstance(value, float) else str(value)
        print(f"  {key:<{width}}  {shown}")


def run_bench(
    name: str,
    runs: int | None = None,
    output: Path | None = None,
    options: BenchOptions | None = None,
) -> int:
    names = [n for n, e in BENCHMARKS.items() if e.in_all] if name == "all" else [name]
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(
            f"unknown benchmark {unknown[0]!r}; choose from: all, " + ", ".join(BENCHMARKS),
            file=sys.stderr,
        )
        return 2
    results: dict[str, Figures] = {}
    status = 0
    for bench_name in names:
        loaded = _load(bench_name)
        if isinstance(loaded, str):
            print(f"bench {bench_name} cannot run: {loaded}", file=sys.stderr)
            status = 1
            continue
        function, printer = loaded
        entry = BENCHMARKS[bench_name]
        try:
            if entry.options:
                figures = function(runs or entry.runs, options or BenchOptions())
            else:
                figures = function(runs or entry.runs)
        except BenchError as exc:
            print(f"bench {bench_name}: {exc}", file=sys.stderr)
            status = max(status, exc.exit_status)
            continue
        if not entry.writes_output:
            results[bench_name] = figures
        if printer is not None:
            printer(figures)
        else:
            print_figures(bench_name, figures)
    if output is not None and not all(BENCHMARKS[n].writes_output for n in names):
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return status
