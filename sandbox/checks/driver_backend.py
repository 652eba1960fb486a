"""`run` and `check_patch` for backends that hand jobs to `sandbox/checks/driver.py`.

A backend says where the repository is copied from and to (`_base_job`) and how a job
is carried out (`_execute`); this class turns calls into jobs and answers into results,
and wraps each call in a `sandbox.run` / `sandbox.check_patch` span.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from safety.unified_diff import ParsedDiff, PatchError, parse_strict, vet_overlay
from sandbox import tracing
from sandbox.checks.baseline import BaselineCache, TreeDigest, baseline_key
from sandbox.checks.command import (
    format_command,
    toolchain_problem,
)
from sandbox.checks.test_results import CheckRun, Comparison, check_run, compare, with_report
from sandbox.config import SandboxConfig
from sandbox.null_backend import check_in_memory, rejected
from sandbox.project import SKIPPED_DIRS, ProjectProfile, project_profile
from sandbox.protocol import Command, ContextManaged, PatchCheck, RunResult, Texts

OUTPUT_LIMIT = 64_000  # bytes kept per stream (head and tail)


class SandboxUnavailable(Exception):
    """The backend cannot run anything right now; the message says why and what to do."""


class DriverBackedSandbox(ContextManaged):
    backend = ""

    def __init__(self, repo_root: Path, config: SandboxConfig) -> None:
        self.repo_root = Path(repo_root).resolve()
        self.config = config
        self.timeout_s = float(config.timeout_s)
        self.baselines = BaselineCache()
        self._tree = TreeDigest(self.repo_root, SKIPPED_DIRS)
        # The job's project profile (`open_sandbox(..., profile=)`); else made on first check.
        self.profile: ProjectProfile | None = None

    def _base_job(self) -> dict[str, Any]:
        """Where the job copies from and to, and `junit_path` (outside the work copy)."""
        raise NotImplementedError

    def environment_key(self) -> str:
        """Names the project environment checks see ("" for none); part of baseline keys."""
        return ""

    def has_program(self, name: str) -> bool:
        """Whether the place checks run has the program `name` (a toolchain) on PATH."""
        return True

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
                job = self._job(
                    command=command, diff=None, strip=1, overlay={}, merge=False, junit=False
                )
                job["timeout_s"] = limit
                try:
                    answer = self._execute(job, limit)
                except SandboxUnavailable as exc:
                    result = self._unavailable_run(str(exc), started, available=False)
                else:
                    result = self._run_result(answer, started, limit)
            _trace_ending(span, result, exit_code=result.exit_code)
            return result

    def check_patch(
        self, diff: str, check_command: Command = None, overlay: Texts = None
    ) -> PatchCheck:
        started = time.monotonic()
        with tracing.span("check_patch", backend=self.backend) as span:
            result = self._check_patch(diff, check_command, overlay, started)
            _trace_ending(span, result, applies=result.applies, check_status=result.check_status)
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
        missing = toolchain_problem(command or (), self.has_program)
        if missing:  # apply only: the command cannot run here
            job = self._job(command=[], diff=parsed.text, strip=parsed.strip, overlay=texts)
        try:
            answer = self._execute(job, self.timeout_s)
        except SandboxUnavailable as exc:
            return self._in_memory(parsed, texts, str(exc), started)
        if answer.get("stage") in ("copy", "driver"):
            reason = str(answer.get("error") or "the sandbox failed")
            return self._in_memory(parsed, texts, reason, started)
        if missing:
            applied = self._patch_check(answer, parsed, None, started)
            if not applied.applies:
                return applied
            output = f"{applied.output}\nno check ran: {missing}"
            return replace(applied, check_command=command, problem=missing, output=output)
        comparison = None
        if _ran(answer) and command:
            after = _check_run(answer)
            before = self._baseline(command, texts)
            comparison = compare(before, after) if before is not None else None
        return self._patch_check(answer, parsed, command, started, comparison)

    def _baseline(self, command: tuple[str, ...], overlay: dict[str, str]) -> CheckRun | None:
        """The check command's run on the unpatched tree, cached by the tree's content."""
        key = baseline_key(self._tree.digest(overlay), command, self.environment_key())
        cached = self.baselines.get(key)
        if cached is not None:
            return cached
        job = self._job(command=list(command), diff=None, strip=1, overlay=overlay)
        with tracing.span("baseline", backend=self.backend):
            try:
                answer = self._execute(job, self.timeout_s)
            except SandboxUnavailable:
                return None
        if not _ran(answer):
            return None  # timed out or failed to start: no comparison, not cached
        run = _check_run(answer)
        self.baselines.put(key, run)
        return run

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
        junit: bool = True,
    ) -> dict[str, Any]:
        job = self._base_job()
        if junit and command and job.get("junit_path"):
            command = with_report(command, job["junit_path"])
        else:
            job["junit_path"] = None
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
        if self.profile is None:
            self.profile = project_profile(self.repo_root, self.config.check_command)
        return self.profile.check_for(added)

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
        comparison: Comparison | None = None,
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
        results: dict[str, Any] = {}
        if comparison is not None and not timed_out:
            passed = {"passed": True, "failed": False}.get(comparison.verdict)
            results = {
                "fixed": comparison.fixed,
                "broken": comparison.broken,
                "still_failing": comparison.still_failing,
                "failing_before": comparison.failing_before,
                "problem": comparison.problem,
                "exit_status_only": not comparison.per_test and not comparison.problem,
            }
        return PatchCheck(
            applies=applies,
            check_passed=passed,
            output=output.strip(),
            duration_s=time.monotonic() - started,
            backend=self.backend,
            timed_out=timed_out,
            check_command=command,
            files=parsed.paths,
            **results,
        )


def _ran(answer: dict[str, Any]) -> bool:
    """Whether the job's command ran to an exit (not timed out, not failed to start)."""
    return (
        answer.get("stage") == "command"
        and not answer.get("timed_out")
        and not answer.get("error")
        and answer.get("exit_code") is not None
    )


def _check_run(answer: dict[str, Any]) -> CheckRun:
    code = answer.get("exit_code")
    output = str(answer.get("stdout") or "") + str(answer.get("stderr") or "")
    junit = answer.get("junit")
    return check_run(None if code is None else int(code), output, junit if junit else None)


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


def _trace_ending(span: Any, result: RunResult | PatchCheck, **attributes: Any) -> None:
    """A run's or a check's span closes with how it ended (and `attributes`)."""
    tracing.set_attributes(
        span,
        **attributes,
        timed_out=result.timed_out,
        duration_s=result.duration_s,
        available=result.available,
    )
