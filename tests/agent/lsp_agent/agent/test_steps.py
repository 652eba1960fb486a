"""What a step's progress line says about its observation, and which tasks ask for a change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_agent.agent.observations import is_error_observation, summarize_observation
from lsp_agent.agent.steps import asks_for_change, change_before_answer

ERROR = json.dumps({"error": "not_found", "message": "no file x.py", "tool": "read_file"})


def test_the_error_schema_is_an_error_also_with_a_loop_note_after_it() -> None:
    assert is_error_observation(ERROR)
    assert is_error_observation(ERROR + "\n[warning] the same call failed twice; try another")
    assert not is_error_observation('{"patch_id": "p1", "check": "passed"}')
    assert not is_error_observation("plain text mentioning error and message")
    assert not is_error_observation("")


def test_the_progress_line_of_an_error_is_its_message() -> None:
    assert summarize_observation(ERROR) == "no file x.py"


@pytest.mark.parametrize(
    "task",
    [
        "total_stock() returns the wrong total. Fix it.",
        "The test in test_calc.py fails. Find and fix the bug in calc.py.",
        "Implement the stub in pangram.py so that the tests in pangram_test.py pass",
        "Please rename average() to mean()",
        "Use read_file to read calc.py. Then fix it with propose_patch.",
        "Make the tests in x_test.py pass.",
    ],
)
def test_a_sentence_that_tells_the_agent_to_change_code_asks_for_change(task: str) -> None:
    assert asks_for_change(task)


@pytest.mark.parametrize(
    "task",
    [
        "How do I fix it?",
        "add 2 and 40",
        "Make a list of the files.",
        "Why does the fix not work?",
        "What is 6 times 7? Do not use any tool",
        "File: calc.py\nwhich model are you?",
        "Use read_file to read config.py. What is MAX_ITEMS?",
    ],
)
def test_questions_do_not_ask_for_change(task: str) -> None:
    assert not asks_for_change(task)


def test_an_answer_before_the_change_is_done_is_refused_once_for_each_reason(
    tmp_path: Path,
) -> None:
    from sandbox.protocol import PatchCheck
    from tests.tool_context import tool_context
    from tools.patches import apply_whole_file
    from tools.workspace import DiskWorkspace

    (tmp_path / "school.py").write_text("class School:\n    pass\n", encoding="utf-8")
    context = tool_context(DiskWorkspace(tmp_path))
    context.task_files = ("school.py",)
    check = change_before_answer(context, "Implement school.py so the tests pass.")
    assert change_before_answer(context, "What does School do?")("It is empty.", None)
    with pytest.raises(ValueError, match="no patch was proposed"):
        check("Done.", None)
    output = "____ SchoolTest.test_add ____\n\nE   AssertionError: [] != ['Aimee']\n"
    failing = PatchCheck(True, True, output, 0.1, still_failing=("school_test.py::T::test_add",))
    result = apply_whole_file("school.py", "class School:\n    x = 1\n", context.workspace, 200)
    p1 = context.patches.add(result.diff, result, failing)
    with pytest.raises(ValueError) as refused:
        check("School is implemented.", None)
    assert str(refused.value).startswith("p1 is proposed, not applied: nothing has changed yet.")
    assert check("School is implemented.", None)  # said again, it stands
    context.patches.set_status(p1.id, "applied")
    with pytest.raises(ValueError) as refused:
        check("School is implemented.", None)
    assert str(refused.value).startswith(
        "p1 is applied, and the change is not done: 1 tests still fail with the patch (first: "
        "SchoolTest.test_add: AssertionError: [] != ['Aimee']"
    ), refused.value
    assert check("School is implemented.", None)
    passing = PatchCheck(True, True, "1 passed", 0.1)
    context.patches.add(result.diff, result, passing)
    context.patches.set_status("p2", "applied")
    fresh = change_before_answer(context, "Implement school.py so the tests pass.")
    assert fresh("School is implemented.", None)  # the tests pass: the answer stands


def test_an_answer_that_repeats_a_tool_reply_s_next_step_is_not_an_answer() -> None:
    from lsp_agent.agent.steps import empty_answer_reason

    echoed = (
        "The failing tests exercise report.py, inventory.py, which you have read. Next: fix "
        'the bug in report.py with propose_patch(path="report.py", old="<the wrong line>", '
        'new="<the corrected line>")'
    )
    tools = ("read_file", "propose_patch", "final_answer")
    assert empty_answer_reason(echoed, tools) == (
        "the final answer repeats the next step a tool's reply gave; take that step first, "
        "then answer in your own words"
    )
    fixed = "Fixed total_stock(): the loop skipped the first item."
    assert empty_answer_reason(fixed, tools) is None
    assert empty_answer_reason("Next: nothing; average() is right.", tools) is None


@pytest.mark.parametrize(
    "answer",
    [
        # Qwen2.5-Coder-1.5B on L4, after reading only config.py (2026-11-28)
        "The owner named in the file is [owner-name]",
        "The owner named in the file is [owner_name]",
        "It is <file_name>.",
        "Version {patch_id}",
        "Signed, [YOUR_NAME]",
        # L8 (2026-11-28): the refusal of an answer, copied back as the next answer
        'Propose the change first: propose_patch(path="report.py", '
        'old="<the exact text to change>", new="<the text as it should be>")',
    ],
)
def test_an_answer_with_a_template_slot_is_not_an_answer(answer: str) -> None:
    from lsp_agent.agent.steps import empty_answer_reason

    reason = empty_answer_reason(answer)
    assert reason is not None and "holds a placeholder" in reason


@pytest.mark.parametrize(
    "answer",
    [
        "See [the docs](https://example.org/a-b) for more.",
        "The flag is --dry-run.",
        "Use list[int] or dict[str, int].",
        "The owner is Mira Okonkwo.",
        'Wrap it in <div class="x"> or <br>.',
    ],
)
def test_brackets_and_hyphens_that_say_something_are_an_answer(answer: str) -> None:
    from lsp_agent.agent.steps import empty_answer_reason

    assert empty_answer_reason(answer) is None


L3 = (
    'Use rg_search to find the file that contains "def restock". Then use read_file to read '
    "that file. Answer with final_answer: the value of RESTOCK_AMOUNT."
)


@pytest.mark.parametrize("answer", ["RESTOCK_AMOUNT", "`RESTOCK_AMOUNT`.", "'RESTOCK_AMOUNT'"])
def test_an_answer_that_only_repeats_a_name_the_task_gave_is_refused(answer: str) -> None:
    from lsp_agent.agent.steps import names_only_what_was_asked

    # through llama-server, Qwen2.5-Coder-1.5B answered "RESTOCK_AMOUNT" (L3, 2 of 2)
    with pytest.raises(ValueError, match="only repeats RESTOCK_AMOUNT, a name the task gave"):
        names_only_what_was_asked(L3)(answer, None)


@pytest.mark.parametrize(
    ("task", "answer"),
    [
        (L3, "RESTOCK_AMOUNT is 37."),
        (L3, "37"),
        (L3, "inventory.py"),
        ("What is the first function defined in calc.py?", "weighted_total"),
        ("Which function calls restock?", "restock_all"),
        ("Is total_stock() tested?", "yes"),
    ],
)
def test_an_answer_that_says_something_found_stands(task: str, answer: str) -> None:
    from lsp_agent.agent.steps import names_only_what_was_asked

    assert names_only_what_was_asked(task)(answer, None)
