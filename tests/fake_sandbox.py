"""A recording stand-in for a Sandbox, for tool tests that are not about the sandbox."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sandbox.protocol import Command, PatchCheck, RunResult, Texts


class FakeSandbox:
    def __init__(
        self,
        backend: str = "docker",
        *,
        check_passed: bool | None = True,
        run_result: RunResult | None = None,
    ) -> None:
        self.backend = backend
        self.check_passed = check_passed
        self.run_result = run_result
        self.checks: list[dict[str, Any]] = []
        self.runs: list[list[str]] = []
        self.closed = False

    def run(self, argv: Sequence[str], timeout_s: float | None = None) -> RunResult:
        self.runs.append(list(argv))
        return self.run_result or RunResult(0, "ran\n", "", False, 0.01, self.backend)

    def check_patch(
        self, diff: str, check_command: Command = None, overlay: Texts = None
    ) -> PatchCheck:
        self.checks.append({"diff": diff, "check_command": check_command, "overlay": overlay})
        output = "" if self.check_passed is not False else "FAILED tests/test_calc.py::test_add"
        return PatchCheck(
            True,
            self.check_passed,
            output,
            0.01,
            self.backend,
            check_command=("python", "-m", "pytest", "-q"),
        )

    def close(self) -> None:
        self.closed = True

    def __enter__(self) -> FakeSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
