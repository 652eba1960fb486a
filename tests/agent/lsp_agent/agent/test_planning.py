"""Planning (AGENT_PLANNING_INTERVAL): the runtime with a scripted model, real tools and repo."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import pytest

from lsp_agent.agent.job_types import ProgressEvent
from lsp_agent.agent.planning import (
    NO_PLAN,
    PLAN_HEADER,
    PLAN_INITIAL,
    PLAN_MAX_REPLY_TOKENS,
    clean_plan,
    plan_char_limit,
    plan_token_limit,
)
from lsp_agent.agent.runtime import run_job
from lsp_agent.models.scripted import ScriptedModel
from lsp_agent.settings import Settings
from tests.jobs import disk_job, fix_script, run_scripted

SETTINGS = Settings(
    sandbox_backend="none", phoenix_enabled=False, agent_max_steps=8, agent_planning_interval=2
)
PLAN_1 = "1. Read pkg/calc.py.\n2. Swap the operands with propose_patch.\n3. Apply it.<end_plan>"
PLAN_2 = "1. Apply p1.\n2. Answer."
FIX = fix_script("pkg/calc.py", "return a + b", "return b + a", "Swapped the operands in add().")
FIX_WITH_PLANS = [{"text": PLAN_1}, *FIX[:2], {"text": PLAN_2}, *FIX[2:]]  # PLAN_2: before step 3


def run(repo: Path, turns: list[dict], settings: Settings = SETTINGS, cancel=None):
    return run_scripted(repo, turns, settings, "fix add", cancel=cancel or threading.Event())


def test_a_plan_comes_first_and_is_revised_every_n_steps(tmp_repo: Path) -> None:
    result, events, model = run(tmp_repo, FIX_WITH_PLANS)
    assert result.status == "answered", result
    assert (tmp_repo / "pkg" / "calc.py").read_text().endswith("return b + a\n")
    plans = [e for e in events if e.kind == "plan"]
    assert [(e.step, e.message) for e in plans] == [
        (1, "1. Read pkg/calc.py.\n2. Swap the operands with propose_patch.\n3. Apply it."),
        (3, PLAN_2),
    ]
    # Planning calls offer no tools and use the short prompts.
    planning_calls = [c for c in model.calls if not c.tool_names]
    assert len(planning_calls) == 2
    assert "at most 5 numbered steps" in planning_calls[0].text()
    assert len(planning_calls[0].text()) < len(PLAN_INITIAL) + 40
    assert planning_calls[1].stop_sequences == ["<end_plan>"]
    assert planning_calls[0].kwargs["max_tokens"] == PLAN_MAX_REPLY_TOKENS
    assert all("max_tokens" not in c.kwargs for c in model.calls if c.tool_names)
    # Planning steps are not steps: step counts, tools and notes stay those of the actions.
    assert result.steps == 4
    assert result.tools_used == ["read_file", "propose_patch", "apply_patch", "final_answer"]
    assert result.model_calls == 6
    step_events = [e.step for e in events if e.kind == "step"]
    assert step_events == [1, 2, 3, 4]


def test_only_the_latest_plan_is_replayed_and_revisions_see_no_system_prompt(
    tmp_repo: Path,
) -> None:
    _, _, model = run(tmp_repo, FIX_WITH_PLANS)
    revise = [c for c in model.calls if not c.tool_names][1]
    assert "You are a coding agent" not in revise.text()  # smolagents' summary mode
    assert revise.text().count("fix add") == 1  # the task once
    assert "Read pkg/calc.py" not in revise.text()  # the old plan does not steer the new one
    assert "5 steps are left" in revise.text()
    after = model.calls[-1].text()  # the final answer's request
    assert f"{PLAN_HEADER}\n{PLAN_2}" in after
    assert "Swap the operands with propose_patch" not in after
    assert "<end_plan>" not in model.calls[2].text()


def test_an_empty_or_failed_plan_is_a_note_and_the_run_goes_on(tmp_repo: Path) -> None:
    turns = [{"error": "overloaded", "status": 503}, *FIX_WITH_PLANS[1:3], {"empty": True}]
    turns += FIX_WITH_PLANS[4:]
    result, events, model = run(tmp_repo, turns)
    assert result.status == "answered", result
    plans = [e for e in events if e.kind == "plan"]
    assert [e.message for e in plans] == [NO_PLAN, NO_PLAN]
    assert not any(e.ok for e in plans)
    assert NO_PLAN in model.calls[1].text()


def test_a_long_plan_is_cut_to_its_share_of_the_budget(tmp_repo: Path) -> None:
    ramble = "\n".join(f"{i}. " + "read every file again " * 12 for i in range(1, 30))
    settings = dataclasses.replace(SETTINGS, model_num_ctx=2048, agent_planning_interval=10)
    result, events, model = run(
        tmp_repo, [{"text": ramble}, {"final_answer": "done, 42"}], settings
    )
    assert result.status == "answered"
    plan = next(e.message for e in events if e.kind == "plan")
    limit = plan_char_limit(int(2048 * 0.75))
    assert len(plan) <= limit and plan.endswith("…")
    assert plan.count("\n") < 8
    assert plan in model.calls[1].text()
    assert ramble not in model.calls[1].text()


def test_cancel_during_planning_stops_before_any_tool(tmp_repo: Path) -> None:
    cancel = threading.Event()
    events: list[ProgressEvent] = []

    def cancel_on_plan(event: ProgressEvent) -> None:
        events.append(event)
        if event.kind == "plan":
            cancel.set()

    model = ScriptedModel(FIX_WITH_PLANS)
    result = run_job(
        disk_job("fix add", tmp_repo, SETTINGS, progress=cancel_on_plan, cancel=cancel, model=model)
    )
    assert result.status == "cancelled"
    assert model.call_count == 1
    assert not [e for e in events if e.kind in ("tool", "step")]


def test_planning_is_off_by_default(tmp_repo: Path) -> None:
    settings = dataclasses.replace(SETTINGS, agent_planning_interval=0)
    answer = [{"final_answer": "42"}]
    result, events, model = run_scripted(
        tmp_repo, answer, settings, "What is 6 times 7?", cancel=threading.Event()
    )
    assert result.status == "answered" and result.model_calls == 1
    assert not [e for e in events if e.kind == "plan"]
    assert all(c.tool_names for c in model.calls)


def test_clean_plan_drops_fences_tags_and_blank_lines() -> None:
    text = "```\n1. a\n\n2. b\n```\n<end_plan>\nignored"
    assert clean_plan(text, 500) == "1. a\n2. b"
    assert clean_plan("(the model gave an empty answer)", 500) == ""
    assert clean_plan("The model could not give a final answer: it failed.", 500) == ""
    assert plan_char_limit(100) == 200 and plan_char_limit(100_000) == 1200


@pytest.mark.parametrize("constrained", [False, True], ids=["native", "constrained"])
def test_planning_replies_are_limited_over_http(tmp_repo: Path, constrained: bool) -> None:
    """Through LiteLLM to an OpenAI-compatible server: a planning request asks for at most
    `plan_token_limit` tokens (MODEL_MAX_TOKENS would otherwise win); other requests do not.
    With MODEL_CONSTRAINED_CALLS a planning request has no tool-call schema: free text."""
    from lsp_agent.testing import ScriptedOpenAIServer

    with ScriptedOpenAIServer(FIX_WITH_PLANS) as server:
        settings = dataclasses.replace(
            SETTINGS,
            model_id="openai/scripted",
            model_api_base=server.openai_base,
            model_constrained_calls=constrained,
        )
        result = run_job(disk_job("fix add", tmp_repo, settings))
        requests = server.chat_requests
    assert result.status == "answered", result
    planning = [r for r in requests if not r.get("tools")]
    acting = [r for r in requests if r.get("tools")]
    assert len(planning) == 2 and len(acting) == 4
    limit = plan_token_limit(int(SETTINGS.model_num_ctx * 0.75))
    assert limit == PLAN_MAX_REPLY_TOKENS
    assert all(r["max_tokens"] == limit for r in planning), planning
    assert all(r["max_tokens"] == SETTINGS.model_max_tokens for r in acting)
    assert planning[0]["stop"] == ["<end_plan>"]
    assert not any("response_format" in r for r in planning)
    assert all(("response_format" in r) == constrained for r in acting)
