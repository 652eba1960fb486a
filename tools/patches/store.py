"""The patches proposed in a run: ids ``p1``, ``p2``, …, status and staleness.

``PatchStore.summary()`` is the agent's "current patch state", short enough to survive
context trimming. A patch is stale when a file it touches changed (document version or
text) after it was made; :func:`rebase` re-applies it to the current text.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from safety.errors import ErrorType
from safety.unified_diff import exists_quietly
from safety.validation import ValidationError
from tools.patches.diff_apply import apply_diff
from tools.patches.model import PatchError, PatchResult
from tools.test_failures import failures, is_test_support
from tools.workspace import NotTextError, Workspace

# Failing tests a patch still leaves that its next step names, one line each.
SHOWN_FAILURES = 3

PatchStatus = Literal["proposed", "applied", "rejected", "failed", "stale"]

TRANSITIONS: dict[PatchStatus, frozenset[PatchStatus]] = {
    "proposed": frozenset({"applied", "rejected", "failed", "stale"}),
    "stale": frozenset({"proposed", "rejected", "failed"}),
    "applied": frozenset(),
    "rejected": frozenset(),
    "failed": frozenset(),
}


class UnknownPatchError(PatchError, KeyError):
    """No patch has the requested id."""

    def __str__(self) -> str:
        return self.message


class PatchStateError(PatchError):
    """The patch's status does not allow the requested change (e.g. applied twice)."""


def content_hash(result: PatchResult) -> str:
    """sha256 of the canonical diff: what an approval is bound to."""
    return hashlib.sha256(result.diff.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class StoredPatch:
    """A proposed patch. ``diff`` is as proposed; ``result`` the change it makes;
    ``check`` the sandbox's check result (opaque here)."""

    id: str
    diff: str
    result: PatchResult
    check: object | None = None
    status: PatchStatus = "proposed"
    reason: str = ""
    created: float = field(default_factory=time.time)
    content_hash: str = ""

    @property
    def files(self) -> list[str]:
        return self.result.paths

    def line(self) -> str:
        """One summary line: id, files, status (and the reason, if any)."""
        text = f"{self.id}: {', '.join(self.files)} [{self.status}]"
        return f"{text} {self.reason}" if self.reason else text


class PatchStore:
    """Thread-safe store of a run's patches."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._patches: dict[str, StoredPatch] = {}
        self._next = 1

    def add(self, diff: str, result: PatchResult, check: object | None = None) -> StoredPatch:
        with self._lock:
            patch = StoredPatch(
                id=f"p{self._next}",
                diff=diff,
                result=result,
                check=check,
                content_hash=content_hash(result),
            )
            self._next += 1
            self._patches[patch.id] = patch
            return patch

    def get(self, patch_id: object) -> StoredPatch:
        key = normalise_id(patch_id)
        with self._lock:
            patch = self._patches.get(key)
            known = list(self._patches)
        if patch is None:
            listed = ", ".join(known) if known else "none yet"
            raise UnknownPatchError(
                f"There is no patch {patch_id!r}. Known patch ids: {listed}.",
                kind=ErrorType.INVALID_ARGUMENT,
                recovery_suggestion=(
                    "Use a patch_id returned by propose_patch or propose_patch_unified."
                    if known
                    else "Propose a patch first with propose_patch or propose_patch_unified."
                ),
            )
        return patch

    def set_status(self, patch_id: object, status: PatchStatus, reason: str = "") -> StoredPatch:
        """Move the patch to ``status``; PatchStateError if the transition is not allowed."""
        key = self.get(patch_id).id
        with self._lock:
            patch = self._patches[key]
            if status not in TRANSITIONS[patch.status]:
                raise PatchStateError(
                    f"Patch {key} is {patch.status}; it cannot become {status}.",
                    kind=ErrorType.INVALID_ARGUMENT,
                    recovery_suggestion=(
                        "Propose a new patch for further changes; "
                        "current patches:\n" + self._summary_locked()
                    ),
                )
            updated = replace(patch, status=status, reason=reason)
            self._patches[key] = updated
            return updated

    def update_result(
        self, patch_id: object, result: PatchResult, check: object | None = None
    ) -> StoredPatch:
        """Replace a proposed or stale patch's change (after :func:`rebase`); it becomes
        proposed again with a new content hash (an earlier approval no longer matches)."""
        key = self.get(patch_id).id
        with self._lock:
            patch = self._patches[key]
            if patch.status not in ("proposed", "stale"):
                raise PatchStateError(
                    f"Patch {key} is {patch.status}; only a proposed or stale patch can be "
                    "re-based.",
                    kind=ErrorType.INVALID_ARGUMENT,
                    recovery_suggestion="Propose a new patch.",
                )
            updated = replace(
                patch,
                result=result,
                check=check,
                status="proposed",
                reason="re-based on the current text",
                content_hash=content_hash(result),
            )
            self._patches[key] = updated
            return updated

    def latest(self) -> StoredPatch | None:
        with self._lock:
            return next(reversed(self._patches.values()), None)

    def all(self) -> list[StoredPatch]:
        with self._lock:
            return list(self._patches.values())

    def applied_to(self, path: str) -> StoredPatch | None:
        """The latest applied patch that changed `path`, if there is one."""
        for patch in reversed(self.all()):
            if patch.status == "applied" and path in patch.files:
                return patch
        return None

    def failing_version(self, path: str, now: str, text: str) -> str | None:
        """Whether `path` reading `text` is a version already tried that leaves tests
        failing: "now" when `text` is the file as it is (`now`) and no applied patch of it
        passes, the id of a proposed patch that gives it and leaves tests failing; None for
        a new version, or one whose tests pass."""
        if text == now:
            applied = self.applied_to(path)
            return None if applied is not None and not leaves_failures(applied.check) else "now"
        patch = self.proposing(path, text)
        return patch.id if patch is not None and leaves_failures(patch.check) else None

    def proposing(self, path: str, text: str) -> StoredPatch | None:
        """The latest patch still proposed (not applied, not rejected) after which `path`
        reads `text`, if there is one."""
        for patch in reversed(self.all()):
            after = {f.path: f.after for f in patch.result.files}
            if patch.status == "proposed" and after.get(path) == text:
                return patch
        return None

    def leaving_failures(self) -> StoredPatch | None:
        """The latest patch when it is proposed or applied and tests fail with it (still, or
        newly broken); None otherwise."""
        latest = self.latest()
        if latest is None or latest.status not in ("proposed", "applied"):
            return None
        return latest if leaves_failures(latest.check) else None

    def pending_text(self, path: str, now: str) -> str | None:
        """What the latest patch of `path` makes of it while that patch is proposed (not
        applied, rejected or failed) and made against `path` as it is (`now`); None
        otherwise. Code mode builds on it: Qwen2.5-Coder-1.5B wrote Hangman's three methods
        in three steps, each proposed alone against the stub, and applied none."""
        for patch in reversed(self.all()):
            if path not in patch.files:
                continue
            if patch.status != "proposed":
                return None
            changed = next((f for f in patch.result.files if f.path == path), None)
            if changed is None or changed.before != now or changed.after is None:
                return None
            return changed.after
        return None

    def facts(self) -> list[str]:
        """What the run did to the files, one sentence each, from the store alone: what a
        front end says beside the model's answer, which may claim anything."""
        patches = self.all()
        applied = [p for p in patches if p.status == "applied"]
        lines = [] if applied else ["No file was changed: no patch was applied."]
        for patch in patches:
            files = ", ".join(patch.files)
            if patch.status == "applied":
                lines.append(f"Applied {patch.id} to {files}; {check_fact(patch.check)}.")
            elif patch.status == "proposed":
                lines.append(f"{patch.id} ({files}) was proposed, not applied.")
            elif patch.status == "rejected":
                lines.append(f"{patch.id} ({files}) was rejected{_reason(patch.reason)}.")
            else:
                lines.append(f"{patch.id} ({files}) was not written{_reason(patch.reason)}.")
        return lines

    def summary(self) -> str:
        """One line per patch: id, files, status; ``"no patches"`` when empty."""
        with self._lock:
            return self._summary_locked()

    def _summary_locked(self) -> str:
        if not self._patches:
            return "no patches"
        return "\n".join(p.line() for p in self._patches.values())


def _reason(reason: str) -> str:
    return f": {reason.rstrip('.')}" if reason else ""


def check_fact(check: object | None) -> str:
    """A patch's sandbox check in words: `tests passed (fixed: t::a)`, `not checked`."""
    status = getattr(check, "check_status", None)
    if check is None or status in (None, "not run"):
        return "not checked"
    if status == "unavailable":
        return "not checked (no sandbox)"
    words = f"check {status}"
    fixed, broken = getattr(check, "fixed", ()), getattr(check, "broken", ())
    if fixed or broken:
        words += f" (fixed {len(fixed)}, broke {len(broken)} tests)"
    return words


def code_files(files: Sequence[str]) -> list[str]:
    """`files` but the tests and their support files: the code a no-fix patch's way on names
    (the tests are right)."""
    return [f for f in files if not is_test_support(f)]


def not_a_fix(patch_id: str, check: object | None, files: Sequence[str] = ()) -> str:
    """What to do instead of applying a proposed patch whose check says it is no fix: it broke
    passing tests, or every failing test still fails; "" when neither. Qwen2.5-Coder-1.5B
    replaced the wrong line of calc.py (`weighted_total`'s, not `average`'s), was told
    "check: passed … fixed: none; still failing: test_average" and "Next: apply it", and
    applied it and answered that average() was fixed. The way on names the code to change
    (`files` but the tests) and the first failures: told "read the code the failing test
    calls", it read say_test.py, four tests in turn, until the loop guard stopped it."""
    code = code_files(files)
    target = f" to {', '.join(code)}" if code else ""
    broken = getattr(check, "broken", ())
    if broken:
        # No way out is offered here: told "... or call final_answer and say what you found",
        # Qwen2.5-Coder-1.5B, whose first fix of letter() broke test_b, answered at once
        # (step 4 of 10). The step notes say when steps run out.
        return (
            f"{patch_id}'s check broke {len(broken)} passing tests{_first_failures(check)}: do "
            f"not apply it. Next: propose a different change{target}, one that keeps the "
            "passing tests passing."
        )
    if fixes_none(check):
        still = getattr(check, "still_failing", ())
        # No apply_patch call is shown here: told "If the task is something else, apply it
        # with apply_patch(patch_id="p1")", Qwen2.5-Coder-1.5B applied its no-fix to average().
        return (
            f"{patch_id} fixes none of the {len(still)} failing tests: they fail as before"
            f"{_first_failures(check)}. If the task is to make them pass, do not apply it. "
            f"Next: propose a different change{target}: the tests are right, the code they "
            "call is not."
        )
    return ""


def fixes_none(check: object | None) -> bool:
    """Whether a patch's check names failing tests and none that the patch fixed."""
    return bool(getattr(check, "still_failing", ())) and not getattr(check, "fixed", ())


def fixes_every_failure(check: object | None) -> bool:
    """Whether a patch's check says it makes the failing tests pass and leaves none failing:
    per test (something fixed, nothing still failing or broken), or, without a per-test
    report, a command that failed before the patch and passes with it."""
    if getattr(check, "check_passed", None) is not True or leaves_failures(check):
        return False
    if getattr(check, "fixed", ()):
        return True
    return bool(
        getattr(check, "exit_status_only", False) and getattr(check, "failing_before", False)
    )


def leaves_failures(check: object | None) -> bool:
    """Whether a patch's check says tests fail with it (still, or newly broken)."""
    return bool(getattr(check, "still_failing", ()) or getattr(check, "broken", ()))


def still_failing(check: object | None, patch: str = "the patch") -> str:
    """`3 tests still fail with the patch (first: T: error (f.py line 4); then U: …).`, up
    to `SHOWN_FAILURES` of them, or "" when its check says none does (`patch` names the
    patch: "p3"). Told "applied: p1" after a first version of say() that fixed 3 of 20
    tests, Qwen2.5-Coder-1.5B answered that say() was implemented."""
    still = getattr(check, "still_failing", ())
    if not still:
        return ""
    return f"{len(still)} tests still fail with {patch}{_first_failures(check)}."


def _first_failures(check: object | None) -> str:
    """` (first: T: error (f.py line 4); then U: …)`, up to `SHOWN_FAILURES` failing tests
    from the check's output, or "" when it names none."""
    shown = failures(str(getattr(check, "output", "")), SHOWN_FAILURES)
    return f" (first: {'; then '.join(shown)})" if shown else ""


def next_step(
    patch_id: str, status: PatchStatus, check: object | None = None, files: Sequence[str] = ()
) -> str:
    """What to do after the latest patch, for the step notes. Small models otherwise re-show
    or re-propose a patch in a loop (SmolLM2-135M: 0/10 demo runs without this line, 10/10
    with it), and ask again for a patch the user rejected: a patch that cannot be applied
    any more is never offered again. A proposed patch whose check broke tests is not
    offered for applying (Qwen2.5-Coder-1.5B applied such patches to the test file on 11 of
    12 bug-fix tasks, told "Next: apply it")."""
    if status == "proposed":
        return (
            not_a_fix(patch_id, check, files)
            or f'Next: apply it with apply_patch(patch_id="{patch_id}").'
        )
    if status == "applied":
        still = still_failing(check)
        if still:
            # No way out is offered: told "…, or call final_answer and say so", Qwen2.5-Coder-
            # 1.5B answered at once, with 12 of say()'s 20 tests failing.
            return f"{still} Next: change the code again so that they pass."
        return "Next: call final_answer with a short summary, unless more changes are needed."
    if status == "rejected":
        why = f"the user rejected {patch_id}"
        todo = "propose a different change, or call final_answer and say what you would change"
    elif status == "failed":
        why = f"{patch_id} could not be written"
        todo = "read the current text and propose a new patch, or call final_answer"
    else:  # stale
        why = f"{patch_id} no longer applies: its files changed"
        todo = "read the current text and propose a new patch, or call final_answer"
    return f"{why}; do not apply it again. Next: {todo}."


def normalise_id(patch_id: object) -> str:
    """``"p3"`` from ``"p3"``, ``" P3 "``, ``"3"`` or ``3``."""
    text = str(patch_id).strip().strip("'\"").lower()
    return f"p{text}" if text.isdigit() else text


def is_stale(patch: StoredPatch, workspace: Workspace) -> list[str]:
    """Files whose current version or text differs from what the patch was made against."""
    stale: list[str] = []
    for f in patch.result.files:
        if f.old_path is None:
            if exists_quietly(workspace, f.path):
                stale.append(f.path)
            continue
        moved = f.base_version is not None and _version(workspace, f.old_path) != f.base_version
        if moved or _text(workspace, f.old_path) != f.before:
            stale.append(f.old_path)
        if f.path != f.old_path and f.after is not None and exists_quietly(workspace, f.path):
            stale.append(f.path)
    return stale


def rebase(patch: StoredPatch, workspace: Workspace) -> PatchResult | PatchError:
    """The patch re-applied to the workspace's current text, or why it no longer applies."""
    try:
        return apply_diff(patch.result.diff, workspace)
    except PatchError as exc:
        return exc


def _version(workspace: Workspace, path: str) -> int | None:
    try:
        return workspace.version(path)
    except (ValidationError, OSError, ValueError):
        return None


def _text(workspace: Workspace, path: str) -> str | None:
    try:
        return workspace.read_text(path)
    except (ValidationError, NotTextError, OSError):
        return None
