"""Patch tools: propose (unified diff or search/replace), show, and apply after approval.

A proposal is applied in memory to the workspace text (the editor's buffers when open),
checked in the sandbox, and stored under an id (`p1`, `p2`, …). Applying asks for
approval of exactly that patch (the wrapper's gate), refuses a stale patch (the files
changed since: it is re-based and re-checked, and must be approved again), and writes
through the session's `PatchWriter` (disk headless, a workspace edit in the editor).
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from safety.approval_flags import patch_flags
from safety.approvals import ApprovalKind
from safety.errors import ErrorType, propose_patch_call
from tools.base import AgentTool, ApprovalAsk, ToolContext, ToolFailure
from tools.patches import (
    PatchError,
    PatchResult,
    StoredPatch,
    apply_diff,
    apply_search_replace,
    apply_whole_file,
    apply_whole_function,
    code_files,
    idle_patch,
    is_stale,
    leaves_failures,
    missed_tests,
    never_applied,
    next_step,
    not_a_fix,
    one_line_reading,
    rebase,
    refuse_broken_python,
    same_code_note,
    still_failing,
    text_elsewhere,
    whole_definition_reading,
)

log = logging.getLogger(__name__)

CHECK_OUTPUT_LINES = 15
PATCH_ID_INPUT = {"type": "string", "description": "Patch id."}


def _call(name: str, patch_id: str) -> str:
    return f'{name}(patch_id="{patch_id}")'


class PatchToolBase(AgentTool):
    """Shared by the patch tools: sandbox checks and result shaping."""

    skip_forward_signature_validation = False

    def check(self, result: PatchResult) -> Any:
        """The sandbox's PatchCheck for `result`, or None when the sandbox itself failed."""
        try:
            sandbox = self.context.sandbox()
            return sandbox.check_patch(
                result.diff,
                overlay=dict(self.context.workspace.open_documents()),
            )
        except Exception:  # the sandbox is ours: log the bug, carry on without a check
            log.exception("sandbox check failed")
            return None

    def check_text(self, check: Any) -> str:
        if check is None:
            return "check: unavailable (the sandbox failed; see the server log)"
        text: str = check.summary()
        if not getattr(check, "available", True):
            return text if check.applies else check.output.strip().splitlines()[0]
        if check.check_passed is False or not check.applies:
            tail = check.output.strip().splitlines()[-CHECK_OUTPUT_LINES:]
            text += "\n" + "\n".join(tail)
        return text

    def proposal(self, diff: str, result: PatchResult) -> dict[str, Any]:
        refuse_broken_python(result)
        check = self.check(result)
        patch = self.context.patches.add(diff, result, check)
        reply: dict[str, Any] = {
            "patch_id": patch.id,
            "files": patch.files,
            "check": self.check_text(check),
        }
        if result.adjustments:
            reply["adjustments"] = list(result.adjustments)
        apply = (
            f"Apply with {_call('apply_patch', patch.id)} "
            f"(review first with {_call('show_patch', patch.id)} if needed)."
        )
        steps = [not_a_fix(patch.id, check, patch.files) or f"{apply} {still_failing(check)}"]
        steps.append(same_code_note(patch.id, result, leaves_failures(check)))
        reply["next"] = " ".join(step.strip() for step in steps if step.strip())
        return reply


class ProposalTool(PatchToolBase):
    """A tool that writes a change: the model first says in words what it will change.
    Qwen2.5-Coder-1.5B, asked to fix `average()`, wrote the line back with its bug when it
    wrote the call at once (3 of 3 runs); led to check each line against the task, it named
    the bug and its fix."""

    thought_leads: ClassVar[tuple[str, ...] | None] = ()

    @staticmethod
    def changes(context: ToolContext, arguments: dict[str, Any]) -> PatchResult:
        """What the call with `arguments` makes of the files, in memory: nothing checked or
        stored (`forward` proposes it). Raises `PatchError` for a change that does not apply."""
        raise NotImplementedError


def proposed_change(
    context: ToolContext, tool: str, arguments: dict[str, Any]
) -> PatchResult | None:
    """What calling the proposal tool `tool` with `arguments` would make of the files, as
    the tool makes it (None for another tool, bad arguments, or a change that does not
    apply): a stale-reply check asks whether a proposal only repeats a version tried."""
    proposer = PROPOSAL_TOOLS.get(tool)
    try:
        return None if proposer is None else proposer.changes(context, arguments)
    except (PatchError, ToolFailure, TypeError, KeyError, ValueError, OSError):
        return None


class ProposePatchUnified(ProposalTool):
    name = "propose_patch_unified"
    description = "Propose a change as a unified diff. Returns patch_id and a check result."
    inputs = {"diff": {"type": "string", "description": "Unified diff."}}

    def forward(self, diff: str) -> dict[str, Any]:
        return self.proposal(diff, self.changes(self.context, {"diff": diff}))

    @staticmethod
    def changes(context: ToolContext, arguments: dict[str, Any]) -> PatchResult:
        return apply_diff(arguments["diff"], context.workspace)


class ProposePatch(ProposalTool):
    name = "propose_patch"
    description = (
        "Propose replacing exact text old with new in a file. Returns patch_id and a check result."
    )
    inputs = {
        "path": {"type": "string", "description": "Path in the repository."},
        "old": {"type": "string", "description": "Exact current text."},
        "new": {"type": "string", "description": "New text."},
    }
    path_inputs = ("path",)
    # The text to replace, said first: Qwen2.5-Coder-1.5B, having named the bug in words,
    # began `old` with `return sum(` and went on with the first such line of the file
    # (weighted_total's); said as "replace `len(values) + 1` with `len(values)`", it is
    # copied from the words. The wrong line is named first: told "total_stock() returns the
    # wrong total", the model thought "it sums up the counts of all items except the first
    # one" and went on "So I will replace `total += item.count`" (L8 in-process, every run
    # of two draws): the line it changes is picked before it says which line does the wrong
    # thing (fault localisation, then the repair).
    thought_leads = (" The wrong line is `", " So I will replace `")

    def forward(self, path: str, old: str, new: str) -> dict[str, Any]:
        try:
            result = self.changes(self.context, {"path": path, "old": old, "new": new})
        except PatchError as exc:
            if exc.error_type is ErrorType.PATCH_DOES_NOT_APPLY:
                known = [*self.context.task_files, *sorted(self.context.seen_paths)]
                elsewhere = text_elsewhere(old, path, known, self.context.workspace)
                if elsewhere:
                    exc.message = f"{exc.message} {elsewhere}"
            raise
        return self.proposal(result.diff, result)

    @staticmethod
    def changes(context: ToolContext, arguments: dict[str, Any]) -> PatchResult:
        path, old, new = arguments["path"], arguments["old"], arguments["new"]
        workspace = context.workspace
        plain = apply_search_replace(path, old, new, workspace)
        result = whole_definition_reading(path, old, new, plain, workspace)
        return one_line_reading(path, old, new, result, workspace)


class ProposeFile(ProposalTool):
    """The whole-file edit format: small models rewrite a short file more reliably than
    they copy its lines into `old` (offered with the `whole_file` edit format)."""

    name = "propose_file"
    description = (
        "Propose the complete new text of a file (up to 200 lines): every line, with the "
        "change made. Returns patch_id and a check result."
    )
    inputs = {
        "path": {"type": "string", "description": "Path in the repository."},
        "content": {"type": "string", "description": "The whole new file."},
    }
    path_inputs = ("path",)
    max_lines = 200

    def forward(self, path: str, content: str) -> dict[str, Any]:
        result = self.changes(self.context, {"path": path, "content": content})
        return self.proposal(result.diff, result)

    @staticmethod
    def changes(context: ToolContext, arguments: dict[str, Any]) -> PatchResult:
        path, content = arguments["path"], arguments["content"]
        return apply_whole_file(path, content, context.workspace, ProposeFile.max_lines)


class ProposeFunction(ProposalTool):
    """The whole-function edit format (`whole_function`): a Python function, method or class
    named and written anew (`patches.whole_function`)."""

    name = "propose_function"
    description = (
        "Propose replacing one whole Python function or class: name it and write its complete "
        "new code (def line and body). Returns patch_id and a check result."
    )
    inputs = {
        "path": {"type": "string", "description": "Path in the repository."},
        "name": {"type": "string", "description": "Function or class name (Class.method)."},
        "code": {"type": "string", "description": "The whole new definition."},
    }
    path_inputs = ("path",)

    def forward(self, path: str, name: str, code: str) -> dict[str, Any]:
        result = self.changes(self.context, {"path": path, "name": name, "code": code})
        return self.proposal(result.diff, result)

    @staticmethod
    def changes(context: ToolContext, arguments: dict[str, Any]) -> PatchResult:
        path, name, code = arguments["path"], arguments["name"], arguments["code"]
        return apply_whole_function(path, name, code, context.workspace)


PROPOSAL_TOOLS: dict[str, type[ProposalTool]] = {
    tool.name: tool for tool in (ProposePatchUnified, ProposePatch, ProposeFile, ProposeFunction)
}


class ShowPatch(PatchToolBase):
    name = "show_patch"
    description = "Show a proposed patch."
    inputs = {"patch_id": PATCH_ID_INPUT}

    def forward(self, patch_id: str) -> str:
        patch = self.context.patches.get(patch_id)
        header = f"{patch.line()}\n{self.check_text(patch.check)}"
        return f"{header}\n{patch.result.diff}"


class ApplyPatch(PatchToolBase):
    """Apply a proposed patch. One whose check says it is no fix (`not_a_fix`: it broke
    passing tests, or every failing test still fails) is refused the first time, before
    anyone is asked: told "do not apply it", Qwen2.5-Coder-1.5B applied such patches one
    after another (L8: `item.count + item.count`, then `sum(…) / 2` over it), and each
    later proposal began from the broken text. The refusal names the way on (a different
    change, with the `propose_patch` call), not the call that applies it. Asked again, it
    is applied (the user still approves it: the failing tests need not be the task's),
    unless it changes no code at all (`idle_patch`) or a still-failing test calls a
    definition it changes or the task names (`missed_tests`: it was aimed at that test and
    missed): those never are."""

    name = "apply_patch"
    description = "Apply a proposed patch once the user approves it."
    inputs = {"patch_id": PATCH_ID_INPUT}

    def __init__(self, context: ToolContext) -> None:
        super().__init__(context)
        self.refused_once: set[str] = set()  # ids of no-fix patches refused already

    def approval_for(self, arguments: dict[str, Any]) -> ApprovalAsk | None:
        patch = self.context.patches.get(arguments.get("patch_id"))
        if patch.status != "proposed" or self._no_fix(patch) or self._never(patch):
            return None  # forward() explains why it cannot be applied
        flags = patch_flags(patch.result.diff, patch.files)
        summary = f"Apply {patch.id} to {', '.join(patch.files)}"
        return ApprovalAsk(
            kind=ApprovalKind.PATCH,
            content=patch.result.diff,
            summary=" | ".join([summary, *flags]),
            details="\n".join([*flags, self.check_text(patch.check)]),
        )

    def approval_refused(self, arguments: dict[str, Any], ask: ApprovalAsk, reason: str) -> None:
        """A rejected patch is marked so: the step notes never suggest applying it again."""
        if ask.kind is ApprovalKind.PATCH:
            patch = self.context.patches.get(arguments.get("patch_id"))
            self.context.patches.set_status(patch.id, "rejected", reason)

    def forward(self, patch_id: str) -> str:
        patch = self.context.patches.get(patch_id)
        if patch.status != "proposed":
            raise ToolFailure(
                ErrorType.INVALID_ARGUMENT,
                f"Patch {patch.id} is {patch.status}; only a proposed patch can be applied.",
                next_step(patch.id, patch.status)
                + "\nCurrent patches:\n"
                + self.context.patches.summary(),
                patch_id=patch.id,
            )
        # The way on, not the call that applies it all the same: told "To apply it all the
        # same, call apply_patch(patch_id="p1") again.", Qwen2.5-Coder-1.5B thought just that
        # and did it (L8 in-process, 3 runs of 3 on 2026-11-29). Not the lines of the
        # definition the patch rewrote either: that may be the wrong one (L6: weighted_total's,
        # "The wrong line is one of these: …" sent the model back to it).
        different = f"Propose a different change: {propose_patch_call(self._code_file(patch))}."
        if idle_patch(patch):
            raise ToolFailure(
                ErrorType.INVALID_ARGUMENT,
                f"{patch.id} was not applied: {patch.id} changes no code, and the failing tests "
                "fail as before: applied, it would change nothing the task needs.",
                same_code_note(patch.id, patch.result, failing=True),
                patch_id=patch.id,
            )
        missed = missed_tests(patch, self.context.workspace, self.context.task_names)
        if missed:
            test, name, patched = missed[0]
            why = f"which {patch.id} changes" if patched else "which the task names"
            raise ToolFailure(
                ErrorType.INVALID_ARGUMENT,
                f"{patch.id} was not applied: {test} calls {name}(), {why}, and {test} fails "
                f"as before: applied, {patch.id} would leave the bug {test} finds.",
                different,
                patch_id=patch.id,
            )
        refusal = self._no_fix(patch)
        if refusal:
            self.refused_once.add(patch.id)
            raise ToolFailure(
                ErrorType.INVALID_ARGUMENT,
                f"{patch.id} was not applied: {refusal} Asked for again, it is applied.",
                different,
                patch_id=patch.id,
            )
        changed = is_stale(patch, self.context.workspace)
        if changed:
            self._refresh_stale(patch, changed)
        assert self.context.writer is not None
        outcome = self.context.writer.write(patch.result)
        files = ", ".join(outcome.files or patch.files)
        if outcome.status == "applied":
            self.context.patches.set_status(patch.id, "applied")
            still = still_failing(patch.check)
            return f"applied: {patch.id} ({files})" + (f". {still}" if still else "")
        self.context.patches.set_status(patch.id, outcome.status, outcome.reason)
        if outcome.status == "rejected":
            return f"rejected: {patch.id} was not applied: {outcome.reason}"
        raise ToolFailure(
            ErrorType.PATCH_DOES_NOT_APPLY,
            f"failed: {patch.id} was not applied: {outcome.reason}",
            "Read the current text with read_file and propose a new patch.",
            patch_id=patch.id,
        )

    def _never(self, patch: StoredPatch) -> bool:
        """Whether `patch` is refused every time (`tools.patches.never_applied`)."""
        return never_applied(patch, self.context.workspace, self.context.task_names)

    @staticmethod
    def _code_file(patch: StoredPatch) -> str:
        """The file a different change goes to: the patch's first that is not a test's."""
        return (code_files(patch.files) or patch.files)[0]

    def _no_fix(self, patch: StoredPatch) -> str:
        """Why `patch` is refused now (its check says it is no fix, and it was not refused
        before), or ""."""
        if patch.id in self.refused_once:
            return ""
        return not_a_fix(patch.id, patch.check, patch.files)

    def _refresh_stale(self, patch: StoredPatch, changed: list[str]) -> None:
        """Never write over newer text: re-base and re-check, then ask to apply again."""
        files = ", ".join(changed)
        rebased = rebase(patch, self.context.workspace)
        if isinstance(rebased, PatchError):
            self.context.patches.set_status(patch.id, "stale", rebased.message)
            raise ToolFailure(
                ErrorType.PATCH_STALE,
                f"{files} changed since {patch.id} was proposed and the patch no longer "
                f"applies: {rebased.message}",
                f"Read the current text of {files} with read_file and propose a new patch.",
                patch_id=patch.id,
                files=changed,
            )
        check = self.check(rebased)
        self.context.patches.update_result(patch.id, rebased, check)
        raise ToolFailure(
            ErrorType.PATCH_STALE,
            f"{files} changed since {patch.id} was proposed. It was not applied; it was "
            f"re-based on the current text and re-checked ({self.check_text(check)}).",
            f"Call {_call('apply_patch', patch.id)} again to apply the re-based patch.",
            patch_id=patch.id,
            files=changed,
        )
