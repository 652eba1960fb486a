"""An attempt that stops getting closer is ended, so that a fresh one can start.

On the edit bench's 20 Exercism exercises, every pass of Qwen2.5-Coder-1.5B in code mode
came from the first version it wrote (2026-11-27 to 11-29, four runs): once a version's
tests failed, the steps after it, with that version and its failures in the history, wrote
the same version again, a near copy, or read the tests round and round, until the loop
guard or the time limit ended the job, 250 to 500 s later. A small model repeats what its
history holds; a fresh draw of the whole version is what gives it another chance.

So, in a job that asks for a change (not "only propose"), after the attempt's first
proposal whose sandbox check leaves tests failing, each step that does not propose a
version leaving fewer tests failing than every earlier proposal of the job (the job's
best), other than one that only asks to apply a version, uses up the attempt's patience
(in a later attempt from its first step: a fresh draw that writes no better version, or
code that does not parse, is followed by another draw, not repaired; but a draw whose
failing tests all fail at their assertions, the code running and its values off, is
repaired once as a first version is: at 0.6 the model wrote space-age's eight methods with
`round(…, 1)` where the tests want two places, all eight failing as every earlier version
had, and the next draw started without seeing `31.7 != 31.69`);
after `PATIENCE_STEPS` such steps the attempt is stopped (`NO_PROGRESS`, through the run
state like a loop stop) and the job starts again with a fresh history
(`agent.fresh_start`), the best version's failing tests told, while steps are left. A
proposal that fixes every failing test ends nothing: the model applies
it, or the closing offer does. A job whose checks report no failing tests (no tests, or
no per-test report) is never stopped here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from safety.run_state import NO_PROGRESS, LoopSignal
from tools.base import ToolContext
from tools.patches import StoredPatch, fixes_every_failure
from tools.test_failures import fail_by_value

# Steps after a failing proposal that may pass without a better one before a fresh start.
PATIENCE_STEPS = 1
APPLYING = frozenset({"apply_patch"})  # a step that only calls these uses no patience


def failing_tests(patch: StoredPatch) -> int | None:
    """How many tests fail with `patch` (still or newly broken), or None when its check
    has no per-test report."""
    check = patch.check
    still = getattr(check, "still_failing", ())
    broken = getattr(check, "broken", ())
    fixed = getattr(check, "fixed", ())
    if not (still or broken or fixed):
        return None
    return len(still) + len(broken)


def best_patch(context: ToolContext) -> StoredPatch | None:
    """The job's proposal that leaves the fewest tests failing (the earliest of equals)."""
    counted = [(n, p) for p in context.patches.all() if (n := failing_tests(p)) is not None]
    return min(counted, key=lambda pair: pair[0])[1] if counted else None


@dataclass
class AttemptPatience:
    """One attempt's patience (module doc): `after_step()` after each of its steps."""

    context: ToolContext
    enabled: bool  # the job asks for a change
    seen: set[str] = field(init=False)  # patch ids proposed before this step
    best: int | None = field(init=False)  # the fewest failing tests of the job's proposals
    started: bool = field(init=False)  # a version that leaves tests failing was proposed
    idle: int = field(default=0, init=False)  # steps since the attempt's last better version
    first_draw: bool = field(init=False)  # a later attempt that has written no version yet

    def __post_init__(self) -> None:
        self.seen = {p.id for p in self.context.patches.all()}
        best = best_patch(self.context)
        self.best = failing_tests(best) if best is not None else None
        # a later attempt, after a version whose tests fail: its first step is a draw too
        self.started = self.best is not None
        self.first_draw = self.started

    def after_step(self, calls: Sequence[str] = ()) -> None:
        """Count the step (`calls`: the tools it called); stop the attempt once its
        patience is used up."""
        if not self.enabled or self.context.state.stopped:
            return
        new = [p for p in self.context.patches.all() if p.id not in self.seen]
        self.seen.update(p.id for p in new)
        if not new and calls and set(calls) <= APPLYING:
            return  # asking to apply a version is no step away from it: its answer tells
        if any(fixes_every_failure(p.check) for p in new):
            return  # applied by the model or the closing offer
        counts = [n for p in new if (n := failing_tests(p)) is not None]
        if counts and (self.best is None or min(counts) < self.best):
            self.best, self.idle, self.started = min(counts), 0, True
            return
        if not self.started:
            # the attempt's first version (no better than the job's best) starts its
            # patience; steps before any version are the loop guard's to judge
            self.started = bool(counts)
            return
        if counts and self.first_draw:
            self.first_draw = False  # repaired once if its code runs and its values are off
            if all(fail_by_value(str(getattr(p.check, "output", ""))) for p in new):
                return
        self.idle += 1
        if self.idle >= PATIENCE_STEPS:
            self._stop()

    def _stop(self) -> None:
        self.context.state.stop(
            LoopSignal(
                NO_PROGRESS,
                "Stopping this attempt: its last steps wrote no version that passes more tests.",
                self.idle,
                stop=True,
            )
        )
