"""The compliance suite in the agent modes (`bench models --planning-interval N --subagents
explorer`): the scripted reference solutions still pass every level, through the real tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_agent.benchmarks.compliance.levels import LEVELS
from lsp_agent.benchmarks.compliance.modes import (
    EXPLORER_REFERENCES,
    AgentMode,
    main_steps,
    reference_turns,
)
from lsp_agent.benchmarks.compliance.suite import (
    model_results,
    run_suite,
    scripted_reference,
    suite_settings,
)
from lsp_agent.cli.main import main
from lsp_agent.settings import Settings
from tests.compliance import failures

SETTINGS = suite_settings(Settings(sandbox_backend="none"), "scripted", keep_phoenix=False)
MODES = [
    AgentMode(planning_interval=2),
    AgentMode(subagents=("explorer",)),
    AgentMode(3, ("explorer",)),
]


@pytest.mark.parametrize("mode", MODES, ids=lambda mode: mode.label())
def test_the_references_pass_every_level_in_the_mode(mode: AgentMode) -> None:
    stats = run_suite(
        LEVELS, 1, mode.apply(SETTINGS), lambda level: scripted_reference(level, mode)
    )
    results = model_results(stats)
    assert failures(results) == {}
    for level in LEVELS:
        figures = results["levels"][level.key]
        # Planning steps and the explorer's steps are not the main agent's steps.
        assert figures["steps_mean"] == main_steps(level, mode) <= level.max_steps
        # Every scripted turn was one model call: nothing left over, nothing extra.
        assert figures["model_calls_mean"] == len(reference_turns(level, mode))
    if mode.subagents:
        for key in EXPLORER_REFERENCES:
            assert results["levels"][key]["runs_detail"][0]["tools"][0] == "explorer"


def test_plan_turns_come_before_step_one_and_every_n_steps() -> None:
    level = next(level for level in LEVELS if level.key == "L8")
    turns = reference_turns(level, AgentMode(planning_interval=2))
    plans = [i for i, turn in enumerate(turns) if "text" in turn]
    assert plans == [0, 3, 6]  # before main steps 1, 3 and 5
    assert turns[0]["text"].startswith("1. rg_search(pattern='def total_stock')")
    assert turns[0]["text"].endswith("<end_plan>")
    explored = reference_turns(level, AgentMode(2, ("explorer",)))
    # The explorer's own turns follow its call; plans count main steps only.
    assert [t.get("tool") for t in explored[1:5]] == ["explorer", "rg_search", "read_file", None]
    assert explored[5]["tool"] == "propose_patch"  # main step 2
    assert "text" in explored[6] and explored[7]["tool"] == "apply_patch"  # plan, step 3


def test_cli_runs_a_mode_and_names_it(
    offline_cli: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = offline_cli / "s.json"
    argv = ["bench", "models", "--runs", "1", "--levels", "L3,L8", "--output", str(output)]
    assert main([*argv, "--planning-interval", "2", "--subagents", "explorer"]) == 0
    figures = json.loads(output.read_text())["models"]
    assert figures["command"] == (
        "lsp-agent bench models --runs 1 --planning-interval 2 --subagents explorer "
        "--model scripted --levels L3,L8"
    )
    assert figures["mode"] == "planning every 2; sub-agents explorer"
    total = figures["results"]["scripted"]["total"]
    assert (total["runs"], total["passed"]) == (2, 2)
    out = capsys.readouterr().out
    assert "agent mode: planning every 2; sub-agents explorer" in out
    assert f"model calls: {total['model_calls']} (planning calls" in out
