"""The agent runtime end to end with a scripted model, real tools and a real repository."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from threading import Event

from lsp_agent.agent.task_pointers import SHOWN_MAX_CHARS
from lsp_agent.models.messages import message_text
from lsp_agent.models.scripted import ScriptedModel
from lsp_agent.settings import Settings
from tests.jobs import fix_script, run_scripted, tool_texts
from tools.approval_gate import RejectAll

SETTINGS = Settings(sandbox_backend="none", phoenix_enabled=False, agent_max_steps=8)


def run(repo: Path, turns: list[dict], *, approvals=None, cancel=None, settings=SETTINGS):
    extra = {"approvals": approvals} if approvals is not None else {}
    return run_scripted(repo, turns, settings, "find the bug", cancel=cancel or Event(), **extra)


def test_five_step_task_completes_and_changes_the_file(tmp_repo: Path) -> None:
    result, events, _model = run(
        tmp_repo,
        [
            {"tool": "list_files", "arguments": {"pattern": "*.py"}},
            *fix_script(
                "pkg/calc.py", "return a + b", "return b + a", "Swapped the operands in add()."
            ),
        ],
    )
    assert result.status == "answered", result
    assert result.answer == "Swapped the operands in add()."
    assert result.tools_used == [
        "list_files",
        "read_file",
        "propose_patch",
        "apply_patch",
        "final_answer",
    ]
    assert (tmp_repo / "pkg" / "calc.py").read_text() == "def add(a, b):\n    return b + a\n"
    assert result.patches == ["p1: pkg/calc.py [applied]"]
    assert [e.step for e in events if e.kind == "step"] == [1, 2, 3, 4, 5]
    assert any(e.kind == "tool" and e.tool == "apply_patch" for e in events)


def test_dangerous_command_is_blocked(tmp_repo: Path) -> None:
    marker = tmp_repo / "marker"
    result, _, model = run(
        tmp_repo,
        [
            {"tool": "run_cmd", "arguments": {"command": f"rm -rf / ; touch {marker}"}},
            {"final_answer": "I could not run that."},
        ],
    )
    assert result.status == "answered"
    shown = tool_texts(model)[0]
    assert '"error": "command_denied"' in shown
    assert not marker.exists()


def test_approval_gate_stops_pip_install(tmp_repo: Path) -> None:
    result, _, model = run(
        tmp_repo,
        [
            {"tool": "run_cmd", "arguments": {"command": "pip install numpy"}},
            {"final_answer": "Not allowed to install."},
        ],
        approvals=RejectAll(),
    )
    shown = json.loads(tool_texts(model)[0])
    assert shown["error"] == "approval_rejected" and shown["message"].startswith("rejected:")
    assert result.status == "answered"


def test_recovery_hint_for_a_file_that_does_not_exist(tmp_repo: Path) -> None:
    _, _, model = run(
        tmp_repo,
        [
            {"tool": "read_file", "arguments": {"path": "pkg/calculator.py"}},
            {"final_answer": "done"},
        ],
    )
    shown = json.loads(tool_texts(model)[0])
    assert shown["error"] == "file_not_found"
    assert "pkg/calc.py" in shown["recovery_suggestion"]


def test_history_is_replayed_as_native_tool_calls(tmp_repo: Path) -> None:
    _, _, model = run(
        tmp_repo,
        [
            {"tool": "read_file", "arguments": {"path": "pkg/calc.py"}},
            {"final_answer": "done"},
        ],
    )
    second = model.calls[1].messages
    assistant = [m for m in second if m.tool_calls]
    assert assistant and assistant[0].tool_calls[0].function.name == "read_file"
    tool_result = [m for m in second if isinstance(m.raw, dict) and "tool_call_id" in m.raw]
    assert tool_result[0].raw["tool_call_id"] == assistant[0].tool_calls[0].id
    assert not any("Calling tools:" in str(m.content) for m in second)


def test_placeholder_final_answer_is_refused_then_real_one_accepted(tmp_repo: Path) -> None:
    result, _, model = run(
        tmp_repo,
        [
            {"final_answer": "final_answer"},
            {"final_answer": "The bug is in add()."},
        ],
    )
    assert result.status == "answered" and result.answer == "The bug is in add()."
    assert any("placeholder" in str(m.content) for m in model.calls[1].messages)


def test_max_steps_and_budget_reminders(tmp_repo: Path) -> None:
    settings = Settings(sandbox_backend="none", phoenix_enabled=False, agent_max_steps=4)
    turns = [
        {"tool": "read_file", "arguments": {"path": "pkg/calc.py", "start_line": i}}
        for i in (1, 2, 1, 2, 1, 2)
    ]
    result, _, model = run(tmp_repo, turns, settings=settings)
    assert result.status in ("max_steps", "stopped")
    texts = [str(m.content) for call in model.calls for m in call.messages]
    assert any("steps left" in t or "LAST step" in t for t in texts)


def test_words_without_a_call_are_the_answer_on_the_last_step_only(tmp_repo: Path) -> None:
    settings = Settings(sandbox_backend="none", phoenix_enabled=False, agent_max_steps=2)
    turns = [
        {"text": "Let me think about it."},  # step 1: no call, told how to answer or call
        {"text": "The owner is Mira Okonkwo."},  # step 2, the last: this is the answer
    ]
    result, _, model = run(tmp_repo, turns, settings=settings)
    assert result.status == "answered" and result.answer == "The owner is Mira Okonkwo."
    assert len(model.calls) == 2  # no closing summary asked for
    assert any("LAST step" in str(m.content) for m in model.calls[1].messages)


def test_cancel_ends_the_job_within_a_step(tmp_repo: Path) -> None:
    cancel = threading.Event()
    cancel.set()
    result, events, _ = run(
        tmp_repo,
        [
            {"tool": "list_files", "arguments": {"pattern": "*.py"}},
            {"tool": "list_files", "arguments": {"pattern": "*.txt"}},
            {"final_answer": "done"},
        ],
        cancel=cancel,
    )
    assert result.status == "cancelled"
    assert len([e for e in events if e.kind == "step"]) == 1


def test_step_limit_never_counts_past_the_limit_and_says_what_to_do(tmp_repo: Path) -> None:
    settings = Settings(sandbox_backend="none", phoenix_enabled=False, agent_max_steps=3)
    turns = [{"tool": "list_files", "arguments": {"pattern": f"*.{i}"}} for i in range(6)]
    result, events, _ = run(tmp_repo, turns, settings=settings)
    assert result.status == "max_steps"
    assert events and all(e.step <= e.max_steps == 3 for e in events), events
    assert [e.step for e in events if e.kind == "step"] == [1, 2, 3]
    assert events[-1].kind == "info" and "Step limit reached" in events[-1].message
    assert "The step limit (3 steps) ended the run" in result.error
    assert "--max-steps" in result.error and "more precise task" in result.error


def test_one_tool_failing_with_changing_arguments_is_a_loop(tmp_repo: Path) -> None:
    """Seven reads of files that do not exist, each a different path and message: a hint
    after the second failure, a stop with the reason at the fifth."""
    turns = [{"tool": "read_file", "arguments": {"path": f"pkg/missing_{i}.py"}} for i in range(7)]
    result, _, model = run(tmp_repo, [*turns, {"final_answer": "done"}])
    assert result.status == "stopped", result
    assert "read_file failed 5 times in a row" in result.error
    assert "file_not_found" in result.error
    assert len(model.calls) == 5, "the run stops after the fifth failure"
    shown = tool_texts(model)
    assert "[warning]" not in shown[0], "one failure is no loop"
    assert "[warning] read_file failed 2 times in a row" in shown[1]
    assert "recovery_suggestion" in shown[1]


def test_a_different_tool_in_between_resets_the_failure_count(tmp_repo: Path) -> None:
    turns = []
    for i in range(3):
        turns += [
            {"tool": "read_file", "arguments": {"path": f"pkg/missing_{i}.py"}},
            {"tool": "read_file", "arguments": {"path": f"pkg/gone_{i}.py"}},
            {"tool": "list_files", "arguments": {"pattern": f"*.{i}"}},
        ]
    result, _, _ = run(tmp_repo, [*turns[:7], {"final_answer": "Nothing found."}])
    assert result.status == "answered", result


def test_bare_ids_and_tool_names_are_not_answers(tmp_repo: Path) -> None:
    result, _, model = run(
        tmp_repo,
        [
            {
                "tool": "propose_patch",
                "arguments": {"path": "pkg/calc.py", "old": "return a + b", "new": "return b + a"},
            },
            {"final_answer": "p1"},
            {"final_answer": "a1"},
            {"final_answer": "job 1"},
            {"final_answer": "read_file"},
            {"final_answer": "Proposed p1: add() now returns b + a."},
        ],
    )
    assert result.status == "answered" and result.answer.startswith("Proposed p1")
    seen = " ".join(str(m.content) for m in model.calls[-1].messages)
    for reason in ("only a patch id (p1)", "only an approval id (a1)", "only a job id (job 1)"):
        assert reason in seen, reason
    assert "only the name of the tool read_file" in seen
    assert "in plain words" in seen


def test_an_answer_with_a_template_slot_is_refused(tmp_repo: Path) -> None:
    # Qwen2.5-Coder-1.5B answered "The owner named in the file is [owner_name]" without
    # reading the file that names the owner.
    result, _, model = run(
        tmp_repo,
        [
            {"final_answer": "The owner named in the file is [owner_name]"},
            {"final_answer": "The owner is Mira Okonkwo; p1: app.py [rejected]"},
        ],
    )
    assert result.status == "answered" and result.answer.startswith("The owner is Mira")
    told = " ".join(str(m.content) for m in model.calls[1].messages)
    assert "holds a placeholder, [owner_name], where a value belongs" in told


def test_a_number_that_answers_the_task_is_an_answer(tmp_repo: Path) -> None:
    result, _, model = run(tmp_repo, [{"final_answer": "42"}])
    assert result.status == "answered" and result.answer == "42"
    assert len(model.calls) == 1


def step_note(model: ScriptedModel, call: int) -> str:
    """The step note (the last user message) of the model's `call`-th request."""
    return message_text(model.calls[call].messages[-1].content)


def test_a_rejected_patch_is_listed_as_rejected_and_never_offered_again(tmp_repo: Path) -> None:
    before = (tmp_repo / "pkg" / "calc.py").read_bytes()
    result, _, model = run(
        tmp_repo,
        [
            {
                "tool": "propose_patch",
                "arguments": {"path": "pkg/calc.py", "old": "return a + b", "new": "return b + a"},
            },
            {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
            {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
            {"final_answer": "The user did not want the change."},
        ],
        approvals=RejectAll("the user said no"),
    )
    assert (tmp_repo / "pkg" / "calc.py").read_bytes() == before
    assert 'apply_patch(patch_id="p1")' in step_note(model, 1)  # proposed: apply it
    note = step_note(model, 2)  # right after the rejection
    assert "p1: pkg/calc.py [rejected]" in note
    assert 'apply_patch(patch_id="p1")' not in note and "apply it with" not in note
    assert "do not apply it again" in note
    assert "propose a different change" in note and "final_answer" in note
    shown = tool_texts(model)[2]
    again, _ = json.JSONDecoder().raw_decode(shown)
    assert "[warning] apply_patch failed 2 times in a row" in shown
    assert again["error"] == "invalid_argument" and "is rejected" in again["message"]
    assert "do not apply it again" in again["recovery_suggestion"]
    assert result.patches == ["p1: pkg/calc.py [rejected] the user said no"]


def test_a_loop_warning_names_the_file_the_task_names_and_its_read_call(tmp_repo: Path) -> None:
    """The job tells the tools which files its task points at (`find_pointers`): a model
    going round repo_info and list_files is shown the exact call that reads the file that
    was too long to show in the task message; one the message showed whole counts as read."""
    explore = [
        {"tool": "repo_info", "arguments": {}},
        {"tool": "list_files", "arguments": {"pattern": "*.py"}},
    ]
    (tmp_repo / "pkg" / "tables.py").write_text("ROW = 1\n" * (SHOWN_MAX_CHARS // 8 + 1))
    turns = [*explore, *explore, {"final_answer": "done"}]
    task = "add() in pkg/calc.py is wrong; pkg/tables.py has its table. Fix it."
    result, _, model = run_scripted(tmp_repo, turns, SETTINGS, task)
    assert result.status == "answered", result
    assert "def add(a, b):" in message_text(model.calls[0].messages[1].content)  # shown whole
    shown = tool_texts(model)
    assert "[warning]" not in shown[2]
    assert shown[3].endswith(
        'The task names pkg/tables.py, not read yet: read_file(path="pkg/tables.py").'
    ), shown[3]


def test_what_to_replace_is_offered_as_the_task_quotes_it_then_as_lines(tmp_repo: Path) -> None:
    from lsp_agent.agent.runtime import argument_choices, job_context
    from tests.jobs import disk_job

    task = 'In pkg/calc.py replace "a + b" with "b + a" (not "a * b").'
    context = job_context(disk_job(task, tmp_repo, Settings()))
    old = argument_choices(context, task)()["old"]
    assert old({"path": "pkg/calc.py"}) == [
        "a + b",  # quoted and text of the file; "b + a" and "a * b" are not
        "def add(a, b):",
        "    return a + b",
    ]
    assert old({"path": "nothing.py"}) == []


def test_a_fix_answered_before_any_patch_is_refused_once_with_the_call(tmp_repo: Path) -> None:
    answers = [{"final_answer": "add() adds a and b."}, {"final_answer": "No change needed."}]
    result, _, model = run_scripted(  # then a second attempt (agent.fresh_start), as one
        tmp_repo, answers * 2, SETTINGS, "add() is wrong. Fix it in pkg/calc.py.", cancel=Event()
    )
    assert result.status == "answered" and result.answer == "No change needed."
    assert len(model.calls) == 4
    refusal = str(model.calls[1].messages[-1].content)
    assert "no patch was proposed" in refusal
    assert 'propose_patch(path="pkg/calc.py", old=' in refusal


def test_a_question_or_a_proposed_fix_is_answered_at_once(tmp_repo: Path) -> None:
    answer = [{"final_answer": "add() adds a and b."}]
    result, _, _ = run_scripted(tmp_repo, answer, SETTINGS, "How do I fix add()?", cancel=Event())
    assert result.status == "answered"
    script = fix_script("pkg/calc.py", "a + b", "b + a", "Swapped the operands.")
    result, _, _ = run_scripted(tmp_repo, script, SETTINGS, "Fix add().", cancel=Event())
    assert result.status == "answered" and result.answer == "Swapped the operands."


def test_a_call_that_repeats_the_last_one_is_decoded_again_and_the_fresh_one_runs(
    tmp_repo: Path,
) -> None:
    from lsp_agent.agent.runtime import run_job
    from tests.jobs import disk_job

    read = {"tool": "read_file", "arguments": {"path": "pkg/calc.py"}}
    fix = fix_script("pkg/calc.py", "return a + b", "return b + a", "Swapped the operands.")
    # the model reads calc.py, then would read it again: asked once more, hotter, it fixes it
    model = ScriptedModel([read, read, *fix[1:]], varies_with_temperature=True)
    events: list = []
    result = run_job(
        disk_job("find the bug", tmp_repo, SETTINGS, progress=events.append, model=model)
    )
    assert result.status == "answered", result
    assert result.tools_used == ["read_file", "propose_patch", "apply_patch", "final_answer"]
    temperatures = [call.kwargs.get("temperature") for call in model.calls]
    assert temperatures == [None, None, 0.7, None, None], temperatures
    assert (tmp_repo / "pkg" / "calc.py").read_text() == "def add(a, b):\n    return b + a\n"


def test_a_closing_answer_written_as_a_final_answer_call_is_its_answer(tmp_repo: Path) -> None:
    """At the step limit the model is asked for a closing answer; written as a call in text
    (Qwen2.5-Coder-1.5B through llama-server, L6), the user gets its answer, not JSON."""
    settings = Settings(sandbox_backend="none", phoenix_enabled=False, agent_max_steps=2)
    call = '{"name": "final_answer", "arguments": {"answer": "add() in pkg/calc.py adds."}}'
    turns = [
        {"tool": "list_files", "arguments": {"pattern": "*.py"}},
        {"tool": "list_files", "arguments": {"pattern": "*.md"}},
        {"text": f"```json\n{call}\n```"},
    ]
    result, _, model = run(tmp_repo, turns, settings=settings)
    assert result.status == "max_steps", result
    assert result.answer == "add() in pkg/calc.py adds.", result.answer
    assert len(model.calls) == 3


def test_a_patch_apply_patch_never_applies_is_no_patch_id_to_name(
    tmp_repo: Path,
) -> None:
    """A model that constrains arguments cannot name a patch apply_patch never applies
    (`tools.patches.never_applied`: the same code again, or a change to what the failing
    test calls that fixes nothing); with it the only patch, apply_patch has no id to take."""
    from lsp_agent.agent.runtime import argument_choices, job_context
    from tests.jobs import disk_job
    from tools.patches import FilePatch, PatchResult

    class Failing:
        still_failing = ("tests/test_calc.py::test_add",)
        fixed: tuple[str, ...] = ()

    task = "add() in pkg/calc.py is wrong. Fix it."
    context = job_context(disk_job(task, tmp_repo, Settings()))
    before = (tmp_repo / "pkg" / "calc.py").read_text()
    same = before.replace("def add(a, b):\n    return a + b", "def add(a, b): return a + b")
    elsewhere = before + "\n\ndef sub(a, b):\n    return a - b\n"
    changed = before.replace("a + b", "b - a")
    for after in (same, elsewhere, changed):
        result = PatchResult((FilePatch("pkg/calc.py", "pkg/calc.py", before, after),))
        context.patches.add(result.diff, result, Failing())
    assert argument_choices(context, task)()["patch_id"] == ["p2"]
