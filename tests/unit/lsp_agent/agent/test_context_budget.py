"""The context budget masks old tool results; what stands in for one keeps its gist."""

from __future__ import annotations

import json

from smolagents.memory import ActionStep, ToolCall
from smolagents.monitoring import Timing

from lsp_agent.agent.context_budget import ContextBudget, mask_line
from lsp_agent.models.messages import action_messages


def step(number: int, tool: str, observation: str) -> ActionStep:
    return ActionStep(
        step_number=number,
        timing=Timing(start_time=0.0),
        tool_calls=[ToolCall(name=tool, arguments={}, id=f"c{number}")],
        observations=observation,
    )


PROPOSED = json.dumps(
    {
        "patch_id": "p1",
        "files": ["calc.py"],
        "check": "applies: yes; check: passed (fixed 1)",
        "next": 'Apply with apply_patch(patch_id="p1")',
    }
)


def test_a_masked_patch_result_keeps_its_id_in_words_no_one_passes_on() -> None:
    line = mask_line(step(1, "propose_patch", PROPOSED))
    assert "proposed p1 (applies: yes; check: passed (fixed 1))" in line
    assert line.startswith("(result shortened to save context; it began: ")
    # The old placeholder was sent back as a patch id by Qwen2.5-Coder-1.5B.
    assert "hidden to save context: ok" not in line


def test_a_masked_error_keeps_its_message() -> None:
    error = json.dumps({"error": "file_not_found", "message": "No file src/calc.py."})
    assert "No file src/calc.py." in mask_line(step(1, "read_file", error))


def test_the_oldest_results_are_masked_first_and_the_recent_ones_kept() -> None:
    steps = [step(i, "read_file", f"f{i}.py (lines 1-80 of 80)\n" + "x" * 2000) for i in range(6)]
    budget = ContextBudget(budget_tokens=3000, keep_recent=3)
    estimate = budget.enforce(steps, lambda: [m for s in steps for m in action_messages(s)])
    assert estimate <= 3000
    assert budget.masked_steps == {0, 1, 2}
    assert steps[0].observations == (
        "(result shortened to save context; it began: f0.py (lines 1-80 of 80))"
    )
    assert steps[5].observations.startswith("f5.py") and len(steps[5].observations) > 2000


def test_the_ratio_a_model_counted_sizes_the_budget() -> None:
    from smolagents.models import ChatMessage, MessageRole

    from lsp_agent.models.prompt_size import CHARS_PER_TOKEN, measured_chars_per_token
    from lsp_agent.models.robust import RobustModel
    from lsp_agent.models.scripted import ScriptedModel

    # bottle-song: 10,500 characters that Qwen2.5-Coder-1.5B counted as 2,134 tokens
    assert measured_chars_per_token(10_500, 2_134) == 4.0  # 4.4 after 10% off: at most 4
    assert measured_chars_per_token(3_000, 1_000) == 2.7
    assert measured_chars_per_token(1_000, 1_000) == CHARS_PER_TOKEN  # never below
    assert measured_chars_per_token(1_000, 0) is None
    steps = [step(i, "read_file", f"f{i}.py (lines 1-80 of 80)\n" + "x" * 2000) for i in range(6)]
    budget = ContextBudget(budget_tokens=3500, keep_recent=3, chars_per_token=4.0)
    assert budget.enforce(steps, lambda: [m for s in steps for m in action_messages(s)]) < 3500
    assert budget.masked_steps == set()  # ~12,300 characters: 5,600 tokens at 2.2, 3,100 at 4

    class Counted(ScriptedModel):
        counts_tokens = True

    request = [ChatMessage(role=MessageRole.USER, content="x" * 3000)]
    scripted = RobustModel(ScriptedModel([{"text": "a"}]))
    scripted.generate(request)
    assert scripted.chars_per_token is None  # a script's counts are estimates
    counted = RobustModel(Counted([{"text": "a"}, {"text": "b"}]))
    counted.generate(request)  # the script counts 3,000 characters as 750 tokens
    assert counted.chars_per_token == 3.6


def test_once_over_budget_older_results_are_masked_in_one_go_not_one_a_step() -> None:
    # hangman: one result masked a step, 3,400 of 5,300 prompt tokens evaluated again each step
    from lsp_agent.agent.context_budget import LOW_WATER

    budget = ContextBudget(budget_tokens=3000, keep_recent=2)
    steps: list[ActionStep] = []
    maskings = 0
    for number in range(12):
        steps.append(step(number, "read_file", f"f{number}.py\n" + "x" * 600))
        before = len(budget.masked_steps)
        estimate = budget.enforce(steps, lambda: [m for s in steps for m in action_messages(s)])
        assert estimate <= 3000
        maskings += len(budget.masked_steps) > before
        if len(budget.masked_steps) > before:
            assert estimate <= 3000 * LOW_WATER  # room to grow before the next masking
    assert len(budget.masked_steps) >= 4 and maskings < len(budget.masked_steps)
