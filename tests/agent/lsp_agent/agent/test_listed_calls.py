"""The calls a task lists, and an answer refused once before they were made."""

from __future__ import annotations

from pathlib import Path
from threading import Event

import pytest

from lsp_agent.agent.listed_calls import listed_calls, missing_call
from lsp_agent.settings import Settings
from tests.jobs import run_scripted

TOOLS = ("read_file", "read_file_snippet", "rg_search", "run_cmd", "final_answer")
L4 = (
    "Use read_file to read config.py and find DATA_FILE. "
    "Then use read_file to read the file that DATA_FILE names. "
    "Answer with final_answer: the owner named in that file."
)


def test_each_mention_is_a_listed_call_in_order() -> None:
    assert listed_calls(L4, TOOLS) == [
        ("read_file", "Use read_file to read config.py and find DATA_FILE."),
        ("read_file", "Then use read_file to read the file that DATA_FILE names."),
    ]
    numbered = "1. read_file_snippet on a.py\n2. rg_search TODO\n3. final_answer"
    assert [tool for tool, _ in listed_calls(numbered, TOOLS)] == ["read_file_snippet", "rg_search"]


@pytest.mark.parametrize(
    "task",
    [
        "What is 6 times 7? Do not use any tool, not even run_cmd.",
        "Fix it without run_cmd.",
        "Don't call rg_search; the answer is in README.md.",
        "Read config.py (os.read_file is not a tool) and answer.",
        "total_stock() returns the wrong total. Fix it.",
    ],
)
def test_a_tool_the_task_says_not_to_use_or_does_not_name_is_not_listed(task: str) -> None:
    assert listed_calls(task, TOOLS) == []


def test_the_first_call_not_made_is_missing() -> None:
    listed = listed_calls(L4, TOOLS)
    assert missing_call(listed, ["read_file"]) == listed[1]
    assert missing_call(listed, ["read_file", "final_answer"]) == listed[1]
    assert missing_call(listed, []) == listed[0]
    assert missing_call(listed, ["read_file", "rg_search", "read_file"]) is None
    # any tool takes a step: the data file read with read_file_snippet (L4, 2026-11-28)
    assert missing_call(listed, ["read_file", "read_file_snippet"]) is None


def test_an_answer_before_a_listed_step_is_refused_once(tmp_repo: Path) -> None:
    (tmp_repo / "config.py").write_text('DATA_FILE = "owner.txt"\n')
    (tmp_repo / "owner.txt").write_text("owner: Mira Okonkwo\n")
    settings = Settings(sandbox_backend="none", phoenix_enabled=False, agent_max_steps=8)
    turns = [
        {"tool": "read_file", "arguments": {"path": "config.py"}},
        {"final_answer": "The owner is [owner_name]."},  # the listed step is told first
        {"tool": "read_file", "arguments": {"path": "owner.txt"}},
        {"final_answer": "The owner is Mira Okonkwo."},
    ]
    result, _, model = run_scripted(tmp_repo, turns, settings, L4, cancel=Event())
    assert result.status == "answered" and result.answer == "The owner is Mira Okonkwo."
    told = " ".join(str(m.content) for m in model.calls[2].messages)
    assert "the task lists a step not taken yet" in told
    assert "Then use read_file to read the file that DATA_FILE names." in told
    assert "holds a placeholder" not in told
    # said again without the step, the answer stands
    bob = {"final_answer": "The owner is Bob."}
    again = [turns[0], bob, bob]
    result, _, model = run_scripted(tmp_repo, again, settings, L4, cancel=Event())
    assert result.status == "answered" and result.answer == "The owner is Bob."
    assert len(model.calls) == 3


def test_nothing_is_refused_once_a_helper_agent_was_asked() -> None:
    from lsp_agent.agent.listed_calls import listed_calls_before_answer

    made: list[str] = ["explorer"]
    check = listed_calls_before_answer(L4, TOOLS, lambda: made, helpers=["explorer"])
    assert check("The owner is Mira Okonkwo.", None)
    made.clear()
    with pytest.raises(ValueError, match="the task lists a step not taken yet"):
        check("The owner is Mira Okonkwo.", None)
