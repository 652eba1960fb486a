"""A stand-in for `lsp_agent.agent.runtime.run_job` that drives the real tools.

It reads the `MODEL_ID=scripted:PATH` script (the `lsp_agent.models.scripted.script` format) and
performs each turn's tool calls through the real, wrapped tools (approval gate, stale
checks, patch writer), one step per turn, honouring `cancel` between steps and during a
turn's `delay_s`. Observations are written to `PATH.trace.json` for the test to read.
Extra tool names: `crash` raises (a runtime bug); `pause {"until": PATH}` waits (a step
that takes long) until that file exists or the job is cancelled.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from lsp_agent.agent.job_types import JobRequest, JobResult, ProgressEvent
from lsp_agent.models.scripted.script import load_script


def run_scripted_job(request: JobRequest) -> JobResult:
    from lsp_agent.agent.runtime import job_context
    from tools.registry import build_tools

    started = time.monotonic()
    settings, task, cancel, on_progress = (
        request.settings,
        request.task,
        request.cancel,
        request.progress,
    )
    script = Path(settings.model_id.removeprefix("scripted:"))
    turns = load_script(script)
    context = job_context(request)  # the real runtime's tools' context
    tools = {tool.name: tool for tool in build_tools(context)}
    trace: list[dict[str, Any]] = [{"task": task}]
    max_steps = settings.agent_max_steps

    def ended(status: Any, step: int, **extra: Any) -> JobResult:
        patches = [p.line() for p in context.patches.all()]
        return JobResult(
            status, steps=step, patches=patches, duration_s=time.monotonic() - started, **extra
        )

    step = 0
    try:
        for turn in turns:
            if cancel.is_set():
                return ended("cancelled", step)
            step += 1
            on_progress(ProgressEvent(step, max_steps, None, f"thinking (step {step})"))
            if turn.delay_s and cancel.wait(turn.delay_s):
                return ended("cancelled", step)
            if turn.error is not None:
                return ended("failed", step, error=f"model error: {turn.error}")
            for call in turn.calls:
                arguments = call.arguments if isinstance(call.arguments, dict) else {}
                if call.name == "final_answer":
                    return ended("answered", step, answer=str(arguments.get("answer", "")))
                if call.name == "crash":
                    raise RuntimeError("scripted runtime crash")
                if call.name == "pause":
                    on_progress(ProgressEvent(step, max_steps, "pause", "paused", "tool"))
                    flag = Path(str(arguments["until"]))
                    while not flag.exists():
                        if cancel.wait(0.02):
                            return ended("cancelled", step)
                    continue
                # The context reports the call ("running NAME"), as in the real runtime.
                observation = tools[call.name].call(dict(arguments))
                trace.append(
                    {"tool": call.name, "arguments": arguments, "observation": observation}
                )
            context.state.begin_step()  # as the real step monitor does after each step
        return ended("max_steps", step)
    finally:
        context.close()
        script.with_name(script.name + ".trace.json").write_text(json.dumps(trace, indent=1))
