"""Whether an agent solved an exercise: its tests, run in the Docker sandbox, and nothing else.

The model's code is untrusted, so it runs only in the sandbox (no network, no host files).
The tests run on a clean copy: the exercise's original test files beside the agent's
top-level Python files (its solution, and any helper module it wrote, but never a file named
like a standard-library module, which could replace `unittest` itself). An agent that changed
a test file fails the exercise whatever the tests say.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from lsp_agent.benchmarks.edits.exercises import Exercise, changed_test_files
from sandbox import SandboxConfig, open_sandbox

# aider's benchmark command (benchmark.py, run_unit_tests), relative to the exercise.
TEST_COMMAND = ("python", "-m", "unittest", "discover", "-s", ".", "-t", ".", "-p", "*_test.py")
TEST_TIMEOUT_S = 120.0  # aider allows 60 s on a full core; the sandbox has half of one
OUTPUT_CHARS = 4000
_RAN = re.compile(r"^Ran (\d+) tests?", re.MULTILINE)
_FAILED = re.compile(r"^FAILED \((.*)\)$", re.MULTILINE)


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reason: str  # "passed", "tests failed", "test file changed: x_test.py", …
    tests_run: int = 0
    tests_failed: int = 0
    output: str = ""  # the end of the test output


def judge_config() -> SandboxConfig:
    """The user's sandbox settings (image, …) with the Docker backend and a test timeout."""
    return dataclasses.replace(
        SandboxConfig.from_user_scope(), backend="docker", timeout_s=TEST_TIMEOUT_S
    )


def judge(exercise: Exercise, repo: Path, config: SandboxConfig | None = None) -> Verdict:
    changed = changed_test_files(exercise, repo)
    if changed:
        return Verdict(False, "test file changed: " + ", ".join(changed))
    with tempfile.TemporaryDirectory(prefix=f"judge-{exercise.name}-") as scratch:
        clean = Path(scratch)
        copy_for_judging(exercise, repo, clean)
        with open_sandbox(clean, config or judge_config()) as box:
            run = box.run(list(TEST_COMMAND), timeout_s=TEST_TIMEOUT_S)
    output = (run.stdout + run.stderr)[-OUTPUT_CHARS:]
    if not run.available:
        raise RuntimeError(f"the sandbox could not run the tests: {run.stderr.strip()}")
    ran, failed = count_tests(run.stdout + run.stderr)
    if run.timed_out:
        return Verdict(False, "tests timed out", ran, failed, output)
    if run.exit_code != 0:
        return Verdict(False, "tests failed", ran, failed, output)
    return Verdict(True, "passed", ran, 0, output)


def copy_for_judging(exercise: Exercise, repo: Path, clean: Path) -> None:
    for name in exercise.test_files:
        (clean / name).write_text(exercise.files[name], encoding="utf-8")
    protected = set(exercise.test_files) | {f"{module}.py" for module in sys.stdlib_module_names}
    for path in sorted(repo.glob("*.py")):
        if path.name in protected or path.is_symlink() or not path.is_file():
            continue
        shutil.copyfile(path, clean / path.name)


def count_tests(output: str) -> tuple[int, int]:
    """(tests run, tests failed or erred) from unittest's summary (0, 0 when absent)."""
    ran = _RAN.findall(output)
    total = int(ran[-1]) if ran else 0
    failed = 0
    summary = _FAILED.findall(output)
    if summary:
        for part in summary[-1].split(","):
            key, _, value = part.strip().partition("=")
            if key in ("failures", "errors") and value.isdigit():
                failed += int(value)
    return total, failed
