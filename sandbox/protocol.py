"""What every sandbox backend offers: `run`, `check_patch`, and the results they return."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol, Self, runtime_checkable

Command = Sequence[str] | None  # a check command as argv; None: the project's own
Texts = Mapping[str, str] | None  # relative path -> text laid over the repository


@dataclass(frozen=True)
class RunResult:
    """One command's outcome. `exit_code` is -1 when the command never ran."""

    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool
    duration_s: float
    backend: str = ""
    available: bool = True  # False: no sandbox could run it (the reason is in `stderr`)

    @property
    def ok(self) -> bool:
        return self.available and not self.timed_out and self.exit_code == 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class PatchCheck:
    """Whether a diff applies to the repository and what the check said about it.

    `check_passed` is None when no check ran: the diff did not apply, there is no check
    command, or no sandbox was available (`available` False; `output` says why), and when
    the check cannot run in this environment (`problem` says why and how to fix it).

    The check runs the tests before and after the patch: `fixed`, `broken` and
    `still_failing` list test ids (from JUnit XML), `failing_before` says the command
    failed on the unpatched tree too. `check_passed` True means nothing broke. When the
    runner left no per-test report (`npm test`, most non-Python runners) the exit
    statuses before and after decide, and `exit_status_only` says so.
    """

    applies: bool
    check_passed: bool | None
    output: str
    duration_s: float
    backend: str = ""
    available: bool = True
    timed_out: bool = False
    check_command: tuple[str, ...] | None = None
    files: tuple[str, ...] = ()
    fixed: tuple[str, ...] = ()
    broken: tuple[str, ...] = ()
    still_failing: tuple[str, ...] = ()
    failing_before: bool = False
    problem: str = ""
    exit_status_only: bool = False  # no per-test report: the exit statuses were compared

    @property
    def check_status(self) -> str:
        """`passed`, `failed`, `cannot run`, `timed out`, `not run` or `unavailable`."""
        if self.timed_out:
            return "timed out"
        if self.problem:
            return "cannot run"
        if self.check_passed is True:
            return "passed"
        if self.check_passed is False:
            return "failed"
        if not self.available and self.applies:
            return "unavailable"
        return "not run"

    def summary(self) -> str:
        """One line, e.g. `applies: yes; check: passed (python -m pytest -q) [docker]`.

        When the tests say what the patch changed, that comes right after the status:
        `applies: yes; check: passed [docker] — fixed: t::a; broken: none; still failing: t::b
        (failing before the patch) — python -m pytest -q`; for `cannot run`, the reason and
        the fix.
        """
        applies = "yes" if self.applies else "no"
        head = f"applies: {applies}; check: {self.check_status}"
        results = self.results_text()
        if results:  # where and what the patch changed first: they must survive a shortening
            command = f" — {' '.join(self.check_command)}" if self.check_command else ""
            return f"{head} [{self.backend}]{results}{command}"
        command = f" ({' '.join(self.check_command)})" if self.check_command else ""
        return f"{head}{command} [{self.backend}]"

    def results_text(self) -> str:
        """` — ...`: the before/after lists, the environment problem, or ``."""
        if self.problem:
            return f" — {self.problem}"
        if self.fixed or self.broken or self.still_failing:
            still = _ids(self.still_failing)
            if self.still_failing:
                still += " (failing before the patch)"
            return (
                f" — fixed: {_ids(self.fixed)}; broken: {_ids(self.broken)}; still failing: {still}"
            )
        if self.exit_status_only and self.check_passed is not None:
            before = "failing" if self.failing_before else "passing"
            if self.check_passed is self.failing_before:
                after = "passing after" if self.check_passed else "failing after"
                change = f"{before} before the patch, {after}"
            else:
                change = f"{before} before the patch too"
            return f" — by exit status only (no per-test report): {change}"
        if self.check_passed is False and self.failing_before:
            return " — failing before the patch too"
        return ""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["check_status"] = self.check_status
        return data


SHOWN_IDS = 5


def _ids(ids: tuple[str, ...]) -> str:
    if not ids:
        return "none"
    shown = ", ".join(ids[:SHOWN_IDS])
    more = len(ids) - SHOWN_IDS
    return shown + (f" and {more} more" if more > 0 else "")


@runtime_checkable
class Sandbox(Protocol):
    """A place to try patches and run commands without touching the user's files."""

    backend: str

    def run(self, argv: Sequence[str], timeout_s: float | None = None) -> RunResult:
        """Run `argv` in a fresh copy of the repository (its working directory)."""
        ...

    def check_patch(
        self, diff: str, check_command: Command = None, overlay: Texts = None
    ) -> PatchCheck:
        """Apply `diff` to a copy of the repository and run the check command there.

        `check_command` None means the configured/auto command; `[]` means no check.
        `overlay` maps repo-relative paths to text replacing the disk content first
        (the editor's unsaved buffers).
        """
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc: object) -> None: ...


class ContextManaged:
    """`with` support for backends: leaving the block closes the sandbox."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
