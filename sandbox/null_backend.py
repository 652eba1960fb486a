"""The `none` backend: nothing runs. Patches are still parsed and applied in memory.

Also the stand-in whenever a real sandbox is unavailable (Docker down, image missing):
the patch result says whether the diff applies and that the check is unavailable.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from safety.unified_diff import (
    ParsedDiff,
    PatchError,
    apply_to_texts,
    does_not_apply,
    parse_strict,
    vet_overlay,
)
from sandbox import tracing
from sandbox.protocol import Command, ContextManaged, PatchCheck, RunResult, Texts

logger = logging.getLogger(__name__)


class NullSandbox(ContextManaged):
    """A sandbox that runs nothing; `reason` says why (shown in every result)."""

    backend = "none"

    def __init__(self, repo_root: Path, reason: str = "SANDBOX_BACKEND=none") -> None:
        self.repo_root = Path(repo_root).resolve()
        self.reason = reason

    def run(self, argv: Sequence[str], timeout_s: float | None = None) -> RunResult:
        with tracing.span("run", backend=self.backend, available=False):
            return RunResult(
                exit_code=-1,
                stdout="",
                stderr=f"not run: no sandbox is available ({self.reason})",
                timed_out=False,
                duration_s=0.0,
                backend=self.backend,
                available=False,
            )

    def check_patch(
        self, diff: str, check_command: Command = None, overlay: Texts = None
    ) -> PatchCheck:
        started = time.monotonic()
        with tracing.span("check_patch", backend=self.backend, available=False) as span:
            try:
                parsed = parse_strict(diff)
                texts = vet_overlay(overlay)
            except PatchError as exc:
                return rejected(str(exc), started, self.backend)
            result = check_in_memory(
                parsed, repo_root=self.repo_root, overlay=texts, reason=self.reason, started=started
            )
            tracing.set_attributes(span, applies=result.applies)
            return result

    def close(self) -> None:
        return None


def rejected(message: str, started: float, backend: str) -> PatchCheck:
    """The result for a diff that cannot be checked at all (bad input)."""
    return PatchCheck(
        applies=False,
        check_passed=None,
        output=f"patch rejected: {message}",
        duration_s=time.monotonic() - started,
        backend=backend,
    )


def check_in_memory(
    parsed: ParsedDiff,
    *,
    repo_root: Path,
    overlay: Mapping[str, str],
    reason: str,
    started: float,
    backend: str = "none",
) -> PatchCheck:
    """Does the diff apply to the current text? The check itself is unavailable."""

    def read(path: str) -> str | None:
        if path in overlay:
            return overlay[path]
        target = repo_root / path
        if not target.is_file():
            return None
        try:
            return target.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise does_not_apply(f"cannot read {path} as UTF-8 text ({exc})", path) from None

    try:
        apply_to_texts(parsed, read)
    except PatchError as exc:
        applies, output, unavailable = False, f"the diff does not apply: {exc}", ""
    else:
        applies, output = True, f"the diff applies; check: unavailable ({reason})"
        unavailable = reason
    return PatchCheck(
        applies=applies,
        check_passed=None,
        output=output,
        duration_s=time.monotonic() - started,
        backend=backend,
        available=False,
        files=parsed.paths,
        unavailable_reason=unavailable,
    )
