"""Planning and the explorer on the embedded model for real (SmolLM2-135M in llama.cpp): a
planning call offers no tools, so it is a free-text completion without the tool grammar; the
explorer's grammar can only choose its read-only tools."""

from __future__ import annotations

import re
from pathlib import Path
from threading import Event

from lsp_agent.agent.explorer import Explorer
from lsp_agent.agent.factory import AgentRun
from lsp_agent.agent.job_types import ProgressEvent
from lsp_agent.agent.runtime import run_job
from lsp_agent.models.embedded.model import EmbeddedModel
from lsp_agent.models.factory import build_model
from lsp_agent.models.robust import RobustModel
from lsp_agent.settings import Settings
from tests.jobs import disk_job
from tests.tool_context import tool_context
from tests.tool_names import READ_ONLY_TOOLS
from tools.approval_gate import RejectAll
from tools.workspace import DiskWorkspace

SETTINGS = Settings(
    model_id="embedded",
    model_max_tokens=96,
    model_num_ctx=2048,
    model_temperature=0.0,
    sandbox_backend="none",
    phoenix_enabled=False,
    agent_max_steps=2,
    agent_planning_interval=1,
)
READ_ONLY = READ_ONLY_TOOLS | {"final_answer"}


def test_planning_with_the_embedded_model_plans_in_free_text(tmp_repo: Path) -> None:
    events: list[ProgressEvent] = []
    result = run_job(
        disk_job(
            "What does add() in pkg/calc.py return?",
            tmp_repo,
            SETTINGS,
            approvals=RejectAll(),
            progress=events.append,
        )
    )
    assert result.status in ("answered", "max_steps", "stopped"), result
    plans = [e for e in events if e.kind == "plan"]
    assert plans and plans[0].step == 1
    assert all(0 < len(e.message) <= 1200 for e in plans)
    assert "<end_plan>" not in plans[0].message
    # Planning calls are model calls of their own, never steps.
    assert result.model_calls >= result.steps + len(plans) - 1
    assert len([e for e in events if e.kind == "step"]) <= SETTINGS.agent_max_steps + 1


def test_the_explorer_on_the_embedded_model_only_chooses_read_only_tools(
    tmp_repo: Path,
) -> None:
    built = build_model(SETTINGS.model_config())
    assert isinstance(built, EmbeddedModel)
    before = (tmp_repo / "pkg" / "calc.py").read_bytes()
    events: list[ProgressEvent] = []
    context = tool_context(DiskWorkspace(tmp_repo), approvals=RejectAll())
    job = AgentRun(RobustModel(built), context, 4, built.context_length, events.append, Event())
    explorer = Explorer(job, max_steps=2)
    observation = explorer.forward("Where is add() defined? Change it to return 0.")
    assert isinstance(observation, str) and observation
    chosen = {
        match.group(1)
        for e in events
        if (match := re.match(r"explorer step \d+/2 · (\w+)", e.message))
    }
    assert chosen and chosen <= READ_ONLY, chosen
    assert (tmp_repo / "pkg" / "calc.py").read_bytes() == before
