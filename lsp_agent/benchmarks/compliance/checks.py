"""Checkers: pass or fail from a run's outcome (its final answer and the files on disk).

A checker never looks at the transcript: which tools were called, in what order, does not
matter, only what the run left behind. Two kinds cover the nine levels:

- `answer_check(*patterns)`: the job ended with `final_answer`, the answer matches every
  pattern (regular expressions, case-insensitive) and no file in the repository changed;
- `fix_check(path, probe)`: `path` is the only file that changed and the Python `probe`
  exits 0 when run in the repository (so the bug is fixed and nothing else was broken).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lsp_agent.agent.job_types import JobResult
from lsp_agent.benchmarks.compliance.fixture_repo import changed_paths
from safety import host_process

PROBE_TIMEOUT_S = 20


@dataclass(frozen=True)
class Outcome:
    """What one run left behind: the job's result and the repository it worked on."""

    result: JobResult
    repo: Path


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reason: str


Check = Callable[[Outcome], Verdict]


def _unexpected_changes(repo: Path, allowed: str | None = None) -> list[str]:
    return [path for path in changed_paths(repo) if path != allowed]


def answer_check(*patterns: str) -> Check:
    """Pass when the run answered with text matching every pattern and changed no file."""
    compiled = [re.compile(pattern, re.IGNORECASE) for pattern in patterns]

    def check(outcome: Outcome) -> Verdict:
        result = outcome.result
        if result.status != "answered":
            return Verdict(False, f"no final_answer (status {result.status})")
        missing = [p.pattern for p in compiled if not p.search(result.answer)]
        if missing:
            return Verdict(False, "answer lacks " + ", ".join(repr(m) for m in missing))
        changed = _unexpected_changes(outcome.repo)
        if changed:
            return Verdict(False, "changed files: " + ", ".join(changed))
        return Verdict(True, "answer correct")

    return check


def run_probe(repo: Path, probe: str) -> tuple[bool, str]:
    """Run the Python `probe` in `repo` (a child process); (exit 0, last line of stderr)."""
    env = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(repo)}
    try:
        done = host_process.run(  # the benchmark's own fixture repository, by intent
            [sys.executable, "-B", "-c", probe],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return False, f"probe timed out after {PROBE_TIMEOUT_S} s"
    lines = done.stderr.strip().splitlines()
    return done.returncode == 0, lines[-1] if lines else ""


def fix_check(path: str, probe: str) -> Check:
    """Pass when only `path` changed and `probe` runs cleanly against the repository."""

    def check(outcome: Outcome) -> Verdict:
        changed = changed_paths(outcome.repo)
        if path not in changed:
            return Verdict(False, f"{path} unchanged")
        others = _unexpected_changes(outcome.repo, allowed=path)
        if others:
            return Verdict(False, "also changed: " + ", ".join(others))
        ok, error = run_probe(outcome.repo, probe)
        if not ok:
            return Verdict(False, f"{path} still wrong: {error or 'probe failed'}")
        return Verdict(True, f"{path} fixed")

    return check


def tool_answer_check(tool: str, *patterns: str) -> Check:
    """`answer_check`, and the run must have called `tool` (the answer cannot be guessed)."""
    answered = answer_check(*patterns)

    def check(outcome: Outcome) -> Verdict:
        verdict = answered(outcome)
        if verdict.passed and tool not in outcome.result.tools_used:
            return Verdict(False, f"{tool} was never called")
        return verdict

    return check
