"""`lsp-agent bench NAME`: run one benchmark (or `all`), print figures, optionally write JSON.

Each benchmark is a function returning a flat mapping of figure name to number; they are
registered by name here and imported only when run.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

Figures = dict[str, Any]

# name -> (module, function, default runs)
BENCHMARKS: dict[str, tuple[str, str, int]] = {
    "tools": ("lsp_agent.benchmarks.tools_bench", "measure", 20000),
    "prompt": ("lsp_agent.benchmarks.prompt_bench", "measure", 1),
    "context": ("lsp_agent.benchmarks.context_bench", "measure", 30),
    "sandbox": ("lsp_agent.benchmarks.sandbox_bench", "measure", 5),
    "policy": ("safety.policy", "benchmark", 2000),
    "lsp": ("lsp_agent.benchmarks.lsp_bench", "measure", 200),
    "embedded": ("lsp_agent.benchmarks.embedded_bench", "measure", 3),
}


def _load(name: str) -> tuple[Callable[[int], Figures], int] | None:
    module_name, function_name, runs = BENCHMARKS[name]
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    function = getattr(module, function_name, None)
    return (function, runs) if callable(function) else None


def print_figures(name: str, figures: Figures) -> None:
    print(f"bench {name}")
    width = max((len(k) for k in figures), default=0)
    for key, value in figures.items():
        shown = f"{value:.6g}" if isinstance(value, float) else str(value)
        print(f"  {key:<{width}}  {shown}")


def run_bench(name: str, runs: int | None = None, output: Path | None = None) -> int:
    names = list(BENCHMARKS) if name == "all" else [name]
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
        if loaded is None:
            print(f"bench {bench_name}: not yet available in this version", file=sys.stderr)
            status = 1
            continue
        function, default_runs = loaded
        figures = function(runs or default_runs)
        results[bench_name] = figures
        print_figures(bench_name, figures)
    if output is not None:
        output.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return status
