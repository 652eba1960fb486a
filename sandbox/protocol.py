"""What every sandbox backend offers: `run`, `check_patch`, and the results they return."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from types import TracebackType
from typing import Any, Protocol, Self, runtime_checkable


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
    """Whether a diff applies to the repository and whether the check command passed.

    `check_passed` is None when no check ran: the diff did not apply, there is no check
    command, or no sandbox was available (`available` False; `output` says why).
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

    @property
    def check_status(self) -> str:
        """`passed`, `failed`, `timed out`, `not run` or `unavailable`."""
        if self.timed_out:
            return "timed out"
        if self.check_passed is True:
            return "passed"
        if self.check_passed is False:
            return "failed"
        if not self.available and self.applies:
            return "unavailable"
        return "not run"

    def summary(self) -> str:
        """One line, e.g. `applies: yes; check: passed (python -m pytest -q) [docker]`."""
        command = f" ({' '.join(self.check_command)})" if self.check_command else ""
        applies = "yes" if self.applies else "no"
        return f"applies: {applies}; check: {self.check_status}{command} [{self.backend}]"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["check_status"] = self.check_status
        return data


@runtime_checkable
class Sandbox(Protocol):
    """A place to try patches and run commands without touching the user's files."""

    backend: str

    def run(self, argv: Sequence[str], timeout_s: float | None = None) -> RunResult:
        """Run `argv` in a fresh copy of the repository (its working directory)."""
        ...

    def check_patch(
        self,
        diff: str,
        check_command: Sequence[str] | None = None,
        overlay: Mapping[str, str] | None = None,
    ) -> PatchCheck:
        """Apply `diff` to a copy of the repository and run the check command there.

        `check_command` None means the configured/auto command; `[]` means no check.
        `overlay` maps repo-relative paths to text replacing the disk content first
        (the editor's unsaved buffers).
        """
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class ContextManaged:
    """`with` support for backends: leaving the block closes the sandbox."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
