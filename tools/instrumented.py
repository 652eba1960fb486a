"""InstrumentedTool: the one wrapper every tool call passes through.

Order: input validation -> command policy -> approval gate -> execution -> truncation ->
error normalisation -> state recording (loop detection) -> span. A tool that raises
never crashes the run: the model gets the structured error
`{"error", "message", "tool", "context", "recovery_suggestion"}`.

smolagents validates a Tool's metadata at construction; the wrapper keeps that: it
copies `name`, `description`, `output_type` and a deep copy of `inputs` from the wrapped
tool with `object.__setattr__` (the wrapped tool's metadata is never shared or mutated)
and only skips the forward-signature check, since its `forward` takes any arguments.
"""

from __future__ import annotations

import copy
import json
import logging
import time
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, Status, StatusCode
from smolagents import Tool

from safety.approvals import ApprovalKind
from safety.errors import (
    ErrorType,
    ToolError,
    command_denied_error,
    is_tool_error,
    tool_error,
)
from safety.policy import Verdict
from safety.run_state import args_json, digest_of
from safety.secret_redaction import redact_secrets
from safety.truncation import truncate_output
from tools.argument_checks import check_arguments
from tools.base import AgentTool, ApprovalAsk, ToolContext, ToolFailure
from tools.workspace import NotTextError

log = logging.getLogger(__name__)

SPAN_VALUE_CHARS = 2000
Result = dict[str, Any] | str


def unread_task_file(context: ToolContext) -> str:
    """A loop warning's last words: the first file the task points at that no call has read
    or changed yet, and the exact call that reads it (a small model copies the call it is
    shown; told only to "try something else", Qwen2.5-Coder-1.5B went on calling repo_info
    and list_files in turn), or nothing."""
    unread = [path for path in context.task_files if path not in context.seen_paths]
    if not unread:
        return ""
    return f" The task names {unread[0]}, not read yet: read_file(path={json.dumps(unread[0])})."


class CallRecord:
    """What one call did, for the span (a plain slotted class: made on every call)."""

    __slots__ = ("approval", "loop", "rule", "truncated", "verdict")

    def __init__(self) -> None:
        self.verdict = ""
        self.rule = ""
        self.approval = ""
        self.truncated = False
        self.loop = ""


class Refusal(Exception):
    """Stops the pipeline with an error result (nothing is executed)."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error["message"])
        self.error = error


class InstrumentedTool(Tool):  # type: ignore[misc]
    skip_forward_signature_validation = True

    def __init__(self, inner: AgentTool, context: ToolContext) -> None:
        object.__setattr__(self, "name", inner.name)
        object.__setattr__(self, "description", inner.description)
        object.__setattr__(self, "output_type", inner.output_type)
        object.__setattr__(self, "inputs", copy.deepcopy(inner.inputs))
        self.inner = inner
        self.context = context
        self.span_name = f"tool_wrapped.{inner.name}"
        super().__init__()

    def forward(self, *args: Any, **kwargs: Any) -> str:
        arguments = dict(zip(self.inputs, args, strict=False)) | kwargs
        return self.call(arguments)

    def call(self, arguments: dict[str, Any]) -> str:
        if self.context.on_tool_call is not None:
            self.context.on_tool_call(self.name, arguments)
        tracer = self.context.tracer or trace.get_tracer("lsp_agent.tools")
        # start_span + attach by hand: the same span, current while the tool runs (sandbox
        # spans nest under it), without start_as_current_span's two context managers.
        span = tracer.start_span(self.span_name)
        token = otel_context.attach(trace.set_span_in_context(span))
        try:
            return self._traced_call(arguments, span)
        except BaseException as exc:  # a bug in our code: on the span, then raised
            span.record_exception(exc)
            span.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__}: {exc}"))
            raise
        finally:
            otel_context.detach(token)
            span.end()

    def _traced_call(self, arguments: dict[str, Any], span: Span) -> str:
        started = time.perf_counter()
        record = CallRecord()
        result = self._pipeline(arguments, record)
        observation, record.truncated = self._render(result, arguments)
        inputs = args_json(arguments)
        digest = digest_of(inputs)
        signal = self.context.state.record(
            self.name,
            arguments,
            result,
            duration_s=time.perf_counter() - started,
            digest=digest,
        )
        path = arguments.get("path")
        if isinstance(path, str) and not is_tool_error(result):
            self.context.seen_paths.add(path)
        if signal is not None:
            record.loop = signal.kind
            hint = signal.hint if signal.stop else signal.hint + unread_task_file(self.context)
            observation += f"\n\n[{'stop' if signal.stop else 'warning'}] {hint}"
        if span.is_recording():
            self._annotate(
                span,
                inputs=inputs,
                digest=digest,
                observation=observation,
                result=result,
                record=record,
                started=started,
            )
        return observation

    # ---- the pipeline -----------------------------------------------------------------
    def _pipeline(self, arguments: dict[str, Any], record: CallRecord) -> Result:
        try:
            checked = check_arguments(self.inner, arguments, self.context)
            ask = self._policy(checked, record)
            self._approve(ask or self.inner.approval_for(checked), record, checked)
            return self._execute(checked)
        except Refusal as refusal:
            return refusal.error
        except ToolError as failure:
            return failure.to_error(self.name)

    def _policy(self, arguments: dict[str, Any], record: CallRecord) -> ApprovalAsk | None:
        command = self.inner.command_of(arguments)
        if command is None:
            return None
        decision = self.context.policy.evaluate(command, context=self.inner.command_context())
        record.verdict, record.rule = decision.verdict.name, decision.rule
        if decision.verdict is Verdict.DENY:
            raise Refusal(
                command_denied_error(
                    self.name, command, decision.reason, decision.rule, decision.alternative
                )
            )
        if decision.verdict is Verdict.REQUIRE_APPROVAL:
            return ApprovalAsk(
                kind=ApprovalKind.COMMAND,
                content=command,
                summary=f"Run `{command}`",
                details=f"Needs approval: {decision.reason}",
            )
        return None

    def _approve(
        self, ask: ApprovalAsk | None, record: CallRecord, arguments: dict[str, Any]
    ) -> None:
        if ask is None:
            return
        outcome = self.context.approvals.ask(ask)
        record.approval = outcome.status.value
        if not outcome.approved:
            reason = outcome.reason or "the user said no"
            self.inner.approval_refused(arguments, ask, reason)
            raise Refusal(
                tool_error(
                    ErrorType.APPROVAL_REJECTED,
                    f"rejected: {ask.summary} was not approved ({reason}). Nothing was changed.",
                    tool=self.name,
                    context={"kind": ask.kind.value, "by": outcome.by},
                    recovery_suggestion="Do not repeat the same call. Try another approach, "
                    "or finish with final_answer and explain what you would change.",
                )
            )

    def _execute(self, arguments: dict[str, Any]) -> Result:
        if not self.inner.is_initialized:
            self.inner.setup()
        try:
            value: Result = self.inner.forward(**arguments)
        except NotTextError as exc:
            raise ToolFailure(
                ErrorType.INVALID_ARGUMENT, str(exc), "Work with text files only."
            ) from exc
        except FileNotFoundError as exc:
            raise ToolFailure(
                ErrorType.FILE_NOT_FOUND,
                f"File not found: {exc.filename or exc}",
                'List the files with list_files(pattern="**/*").',
            ) from exc
        except (ToolError, Refusal):
            raise
        except Exception as exc:
            log.exception("tool %s failed", self.name)
            return tool_error(
                ErrorType.INTERNAL_ERROR,
                f"The tool failed with an internal error ({type(exc).__name__}: {exc}).",
                tool=self.name,
                context={},
                recovery_suggestion="This is a bug in the tool, not in your call. "
                "Try a different tool or approach.",
            )
        return value

    # ---- output -----------------------------------------------------------------------
    def _render(self, result: Result, arguments: dict[str, Any]) -> tuple[str, bool]:
        limits = self.context.limits
        if isinstance(result, str):
            path = arguments.get("path") if self.name == "read_file" else None
            first = arguments.get("start_line") or 1
            return truncate_output(
                redact_secrets(result),
                limits.max_output_chars,
                limits.max_output_lines,
                path=path if isinstance(path, str) else None,
                first_line=first if isinstance(first, int) else 1,
            )
        truncated = False
        shaped: dict[str, Any] = {}
        for key, value in result.items():
            shaped[key] = value
            if isinstance(value, str):
                shaped[key], cut = truncate_output(
                    redact_secrets(value), limits.max_output_chars, limits.max_output_lines
                )
                truncated = truncated or cut
        return redact_secrets(json.dumps(shaped, ensure_ascii=False, default=str)), truncated

    def _annotate(
        self,
        span: Span,
        *,
        inputs: str,
        digest: str,
        observation: str,
        result: Result,
        record: CallRecord,
        started: float,
    ) -> None:
        attributes: dict[str, Any] = {
            "openinference.span.kind": "TOOL",
            "tool.name": self.name,
            "input.value": redact_secrets(inputs[:SPAN_VALUE_CHARS]),
            "output.value": observation[:SPAN_VALUE_CHARS],
            "lsp_agent.tool.args_hash": digest,
            "lsp_agent.tool.input_chars": len(inputs),
            "lsp_agent.tool.output_chars": len(observation),
            "lsp_agent.tool.truncated": record.truncated,
            "lsp_agent.tool.duration_ms": (time.perf_counter() - started) * 1000,
        }
        optional = {
            "lsp_agent.policy.verdict": record.verdict,
            "lsp_agent.policy.rule": record.rule,
            "lsp_agent.approval.outcome": record.approval,
            "lsp_agent.loop.signal": record.loop,
        }
        attributes.update({k: v for k, v in optional.items() if v})
        attributes.update(self.inner.span_attributes())
        if isinstance(result, dict) and "error" in result and "recovery_suggestion" in result:
            attributes["lsp_agent.error.type"] = str(result["error"])
            attributes["lsp_agent.error.recovery_hint"] = redact_secrets(
                str(result["recovery_suggestion"])
            )
            status = StatusCode.ERROR
            span.set_status(Status(status, redact_secrets(str(result["message"])[:200])))
        span.set_attributes(attributes)
