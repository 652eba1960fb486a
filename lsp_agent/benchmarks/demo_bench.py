"""`lsp-agent bench demo`: how often `lsp-agent demo` fixes its defect, and how fast.

Each run is the whole demo (sample repository, real server over stdio, code action,
embedded model, sandbox check, approval, edit, tests). `--model ID` picks another model
(default: the embedded one). Figures: runs fixed / runs, median and
slowest whole-demo seconds, median agent-job seconds and steps.
"""

from __future__ import annotations

import statistics
import sys

from lsp_agent.benchmarks.runner import BenchError, BenchOptions
from lsp_agent.demo.run import DEFAULT_MODEL, demo_once, quiet


def measure(runs: int, options: BenchOptions) -> dict[str, float | int | str]:
    if len(options.models) > 1:
        raise BenchError("bench demo runs one model: give --model once", exit_status=2)
    model = options.models[0] if options.models else DEFAULT_MODEL
    outcomes = []
    for number in range(1, runs + 1):
        outcome = demo_once(model, quiet)
        outcomes.append(outcome)
        print(
            f"  run {number}/{runs}: {'fixed' if outcome.fixed else 'NOT fixed'} "
            f"({outcome.status}, {outcome.steps} steps, {outcome.duration_s:.1f} s)",
            file=sys.stderr,
            flush=True,
        )
    return {
        "model": model,
        "runs": runs,
        "fixed": sum(o.fixed for o in outcomes),
        "fixed_rate": sum(o.fixed for o in outcomes) / runs,
        "demo_s_median": statistics.median(o.duration_s for o in outcomes),
        "demo_s_max": max(o.duration_s for o in outcomes),
        "job_s_median": statistics.median(o.job_s for o in outcomes),
        "steps_median": statistics.median(o.steps for o in outcomes),
    }
