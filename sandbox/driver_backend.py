"""`run` and `check_patch` for backends that hand jobs to `sandbox/driver.py`.

A backend says where the repository is copied from and to (`_base_job`) and how a job
is carried out (`_execute`); this class turns calls into jobs and answers into results,
and wraps each call in a `sandbox.run` / `sandbox.check_patch` span.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from safety.unified_diff import ParsedDiff, PatchError, parse_strict, vet_overlay
from sandbox import tracing
from sandbox.check_command import format_command, resolve_check_command
from sandbox.config import SandboxConfig
from sandbox.null_backend import check_in_memory, rejected
from sandbox.protocol import ContextManaged, PatchCheck, RunResult

OUTPUT_LIMIT = 64_000  # bytes kept per stream (head and tail)


class SandboxUnavailable(Exception):
    """The backend cannot run anything right now; the message says why and what to do."""


class DriverBackedSandbox(ContextManaged):
    backend = ""

    def __init__(self, repo_root: Path, config: SandboxConfig) -> None:
        self.repo_root = Path(repo_root).resolve()
        self.config = config
        self.timeout_s = float(config.timeout_s)

    def _base_job(self) -> dict[str, Any]:
        raise NotImplementedError

    def _execute(self, job: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """Carry out `job`; raise `SandboxUnavailable` when the backend cannot."""
        raise NotImplementedError

    def run(self, argv: Sequence[str], timeout_s: float | None = None) -> RunResult:
        command = _argv(argv)
        limit = self.timeout_s if timeout_s is None else float(timeout_s)
        started = time.monotonic()
        name = command[0] if command else ""
        with tracing.span("run", backend=self.backend, command=name, timeout_s=limit) as span:
            if not command:
                result = self._unavailable_run("empty command", started, available=True)
            else:
                job = self._job(command=command, diff=None, strip=1, overlay={}, merge=False)
                job["timeout_s"] = limit
                try:
                    answer = self._execute(job, limit)
                except SandboxUnavailable as exc:
                    result = self._unavailable_run(str(exc), started, available=False)
                else:
                    result = self._run_result(answer, started, limit)
            tracing.set_attributes(
                span,
                exit_code=result.exit_code,
                timed_out=result.timed_out,
                duration_s=result.duration_s,
                available=result.available,
            )
            return result

    def check_patch(
        self,
        diff: str,
        check_command: Sequence[str] | None = None,
        overlay: Mapping[str, str] | None = None,
    ) -> PatchCheck:
        started = time.monotonic()
        with tracing.span("check_patch", backend=self.backend) as span:
            result = self._check_patch(diff, check_command, overlay, started)
            tracing.set_attributes(
                span,
                applies=result.applies,
                check_status=result.check_status,
                timed_out=result.timed_out,
                duration_s=result.duration_s,
                available=result.available,
            )
            return result

    def _check_patch(
        self,
        diff: str,
        check_command: Sequence[str] | None,
        overlay: Mapping[str, str] | None,
        started: float,
    ) -> PatchCheck:
        try:
            parsed, texts, command, job = self._patch_job(diff, check_command, overlay)
        except PatchError as exc:
            return rejected(str(exc), started, self.backend)
        try:
            answer = self._execute(job, self.timeout_s)
        except SandboxUnavailable as exc:
            return self._in_memory(parsed, texts, str(exc), started)
        if answer.get("stage") in ("copy", "driver"):
            reason = str(answer.get("error") or "the sandbox failed")
            return self._in_memory(parsed, texts, reason, started)
        return self._patch_check(answer, parsed, command, started)

    def patch_job(
        self,
        diff: str,
        check_command: Sequence[str] | None = None,
        overlay: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """The driver job `check_patch` would run (raises `PatchError`); for benchmarks."""
        return self._patch_job(diff, check_command, overlay)[3]

    def _patch_job(
        self,
        diff: str,
        check_command: Sequence[str] | None,
        overlay: Mapping[str, str] | None,
    ) -> tuple[ParsedDiff, dict[str, str], tuple[str, ...] | None, dict[str, Any]]:
        parsed = parse_strict(diff)
        texts = vet_overlay(overlay)
        command = self._check_command(check_command, parsed)
        job = self._job(
            command=list(command or ()), diff=parsed.text, strip=parsed.strip, overlay=texts
        )
        return parsed, texts, command, job

    def _in_memory(
        self, parsed: ParsedDiff, overlay: dict[str, str], reason: str, started: float
    ) -> PatchCheck:
        return check_in_memory(
            parsed,
            repo_root=self.repo_root,
            overlay=overlay,
            reason=reason,
            started=started,
            backend=self.backend,
        )

    def _job(
        self,
        *,
        command: list[str],
        diff: str | None,
        strip: int,
        overlay: dict[str, str],
        merge: bool = True,
    ) -> dict[str, Any]:
        job = self._base_job()
        job.update(
            overlay=overlay,
            diff=diff,
            strip=strip,
            command=command or None,
            merge_output=merge,
            timeout_s=self.timeout_s,
            output_limit=OUTPUT_LIMIT,
        )
        return job

    def _check_command(
        self, explicit: Sequence[str] | None, parsed: ParsedDiff
    ) -> tuple[str, ...] | None:
        if explicit is not None:
            return tuple(_argv(explicit)) or None
        added = [change.new_path for change in parsed.files if change.new_path]
        return resolve_check_command(self.config, self.repo_root, added)

    def _run_result(self, answer: dict[str, Any], started: float, limit: float) -> RunResult:
        if answer.get("stage") in ("copy", "driver"):
            return self._unavailable_run(str(answer.get("error")), started, available=False)
        code = answer.get("exit_code")
        stderr = str(answer.get("stderr") or "") + _notes(answer, limit)
        return RunResult(
            exit_code=-1 if code is None else int(code),
            stdout=str(answer.get("stdout") or ""),
            stderr=stderr,
            timed_out=bool(answer.get("timed_out")),
            duration_s=time.monotonic() - started,
            backend=self.backend,
        )

    def _unavailable_run(self, reason: str, started: float, *, available: bool) -> RunResult:
        return RunResult(
            exit_code=-1,
            stdout="",
            stderr=f"not run: {reason}",
            timed_out=False,
            duration_s=time.monotonic() - started,
            backend=self.backend,
            available=available,
        )

    def _patch_check(
        self,
        answer: dict[str, Any],
        parsed: ParsedDiff,
        command: tuple[str, ...] | None,
        started: float,
    ) -> PatchCheck:
        timed_out = bool(answer.get("timed_out"))
        applies = bool(answer.get("applies")) and not answer.get("error")
        passed: bool | None = None
        if answer.get("error"):
            output = f"patch rejected: {answer['error']}"
        elif not applies and not timed_out:
            detail = str(answer.get("apply_output") or "").strip()
            output = "the diff does not apply" + (f":\n{detail}" if detail else "")
        elif answer.get("stage") == "done":
            output = "the diff applies; no check ran (no tests found; set CHECK_COMMAND)"
        else:
            applies = applies or answer.get("stage") == "command"
            passed = answer.get("exit_code") == 0 and not timed_out
            header = f"$ {format_command(command or ())}\n"
            output = header + str(answer.get("stdout") or "") + _notes(answer, self.timeout_s)
        return PatchCheck(
            applies=applies,
            check_passed=passed,
            output=output.strip(),
            duration_s=time.monotonic() - started,
            backend=self.backend,
            timed_out=timed_out,
            check_command=command,
            files=parsed.paths,
        )


def _notes(answer: dict[str, Any], limit: float) -> str:
    if answer.get("timed_out"):
        return f"\n[killed: the command ran longer than {limit:g} s]"
    if answer.get("signal") == 9:
        return "\n[killed by SIGKILL: most likely out of memory (512 MiB limit)]"
    if answer.get("signal"):
        return f"\n[killed by signal {answer['signal']}]"
    return ""


def _argv(argv: Sequence[str]) -> list[str]:
    if isinstance(argv, str):
        raise TypeError("argv must be a list of strings, not one string (split it first)")
    command = list(argv)
    if not all(isinstance(part, str) for part in command):
        raise TypeError("argv must contain only strings")
    return command
