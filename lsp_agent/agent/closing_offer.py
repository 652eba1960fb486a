"""At a job's end: a proposed patch that fixes every failing test is offered for approval.

Qwen2.5-Coder-1.5B often proposes a change whose sandbox check passes and then never applies
it: it answers, re-reads the file or runs into the step limit, and the fix is lost with the
job. So when a job that was asked for a change (and not told only to propose one) ends
(answered, step limit or loop stop, never cancelled) with no applied patch doing the work,
the latest such proposal goes to the user the way every patch does: through the job's own
`apply_patch` tool, in the policy-checked, traced wrapper, and the front end's approval gate
(the editor's edit preview, the ACP permission request, the terminal prompt or `--yes`). A
rejection changes nothing.

Only a patch that cannot surprise is offered: still `proposed` (not rejected, stale or
failed), proposed after the last applied patch (so it builds on it), its check fixes every
failing test and breaks none (`fixes_every_failure`), it touches no test file and nothing
its approval question would flag (agent or editor configuration, hidden characters).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from lsp_agent.agent.job_types import ProgressEvent
from lsp_agent.agent.steps import asks_for_change, propose_only
from safety.approval_flags import patch_flags
from tools.base import ToolContext
from tools.patches import StoredPatch, fixes_every_failure, leaves_failures
from tools.test_failures import is_test_support


def change_made(context: ToolContext) -> bool:
    """Whether the job's last applied patch leaves no test failing."""
    applied = [p for p in context.patches.all() if p.status == "applied"]
    return bool(applied) and not leaves_failures(applied[-1].check)


def passing_proposal(context: ToolContext) -> StoredPatch | None:
    """The proposal to offer at the job's end, or None (see the module's docstring)."""
    if change_made(context):
        return None
    patches = context.patches.all()
    applied = [i for i, p in enumerate(patches) if p.status == "applied"]
    after = patches[applied[-1] + 1 :] if applied else patches
    for patch in reversed(after):
        if (
            patch.status == "proposed"
            and fixes_every_failure(patch.check)
            and not any(is_test_support(path) for path in patch.files)
            and not patch_flags(patch.result.diff, patch.files)
        ):
            return patch
    return None


def offer_passing_patch(
    context: ToolContext,
    tools: Sequence[Any],
    task: str,
    progress: Callable[[ProgressEvent], None],
    max_steps: int,
) -> str:
    """Offer `passing_proposal` through the job's `apply_patch` tool; its observation, or ""
    when there is nothing to offer."""
    if not asks_for_change(task) or propose_only(task):
        return ""
    patch = passing_proposal(context)
    apply_patch = next((t for t in tools if getattr(t, "name", "") == "apply_patch"), None)
    if patch is None or apply_patch is None:
        return ""
    progress(
        ProgressEvent(
            min(context.state.step, max_steps),
            max_steps,
            "apply_patch",
            f"The agent proposed {patch.id} ({', '.join(patch.files)}) and did not apply it; "
            "its check fixes every failing test, so it is offered for approval.",
            "notice",
        )
    )
    observation: str = apply_patch(patch_id=patch.id)
    return observation
