"""`bench edits` without a model or Docker: the vendored exercises, the sample, the task texts,
what the judge copies, the runs' figures and resume rules, the relay's token counting, and
the peer driver's aider protocol texts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_agent.benchmarks.edits.exercises import (
    DATA_FILE,
    changed_test_files,
    load_exercises,
    sample_order,
    select_exercises,
    write_repository,
)
from lsp_agent.benchmarks.edits.judge import copy_for_judging, count_tests
from lsp_agent.benchmarks.edits.model_meter import _reply, _tokens
from lsp_agent.benchmarks.edits.peers.peer_driver import clean_test_output, failure_message
from lsp_agent.benchmarks.edits.report import markdown_table
from lsp_agent.benchmarks.edits.results import (
    ExerciseRun,
    ResumeError,
    load_runs,
    summary,
    write_runs,
)
from lsp_agent.benchmarks.edits.task import (
    AIDER_TEST_FAILURES,
    agent_task,
    aider_instructions,
)

BY_NAME = {exercise.name: exercise for exercise in load_exercises()}


def test_the_data_is_aiders_133_exercises_with_exercisms_licence() -> None:
    assert len(BY_NAME) == 133
    licence = (DATA_FILE.parent / "LICENSE").read_text()
    assert "MIT License" in licence and "Exercism" in licence
    for exercise in BY_NAME.values():
        assert len(exercise.solution_files) == 1, exercise.name
        assert any(name.endswith("_test.py") for name in exercise.test_files), exercise.name
        assert exercise.docs["instructions"].strip()
        assert exercise.example.strip()
    assert BY_NAME["paasio"].test_files == ("paasio_test.py", "test_utils.py")


def test_the_sample_is_fixed_and_grows_by_adding() -> None:
    order = sample_order()
    assert sorted(order) == sorted(BY_NAME)
    assert [e.name for e in select_exercises(5)] == order[:5]
    assert [e.name for e in select_exercises(20)][:5] == order[:5]
    assert [e.name for e in select_exercises()] == order[:3]
    assert [e.name for e in select_exercises(names=["two-fer", "leap"])] == ["two-fer", "leap"]
    with pytest.raises(ValueError, match="unknown exercise 'lepa'"):
        select_exercises(names=["leap", "lepa"])
    with pytest.raises(ValueError, match=r"1\.\.133"):
        select_exercises(0)


def test_a_repository_holds_the_stub_and_the_tests_but_never_the_example(tmp_path: Path) -> None:
    exercise = BY_NAME["leap"]
    repo = write_repository(exercise, tmp_path / "repo")
    files = {p.name for p in repo.iterdir() if p.name != ".git"}
    assert files == {"leap.py", "leap_test.py", ".gitignore"}
    assert exercise.example not in "".join(p.read_text() for p in repo.glob("*.py"))
    assert changed_test_files(exercise, repo) == []
    (repo / "leap_test.py").write_text("import unittest\n")
    assert changed_test_files(exercise, repo) == ["leap_test.py"]
    (repo / "leap_test.py").unlink()
    (repo / "leap_test.py").symlink_to(tmp_path / "elsewhere.py")
    (tmp_path / "elsewhere.py").write_text(exercise.files["leap_test.py"])
    assert changed_test_files(exercise, repo) == ["leap_test.py"], "a symlink is a change"


def test_the_judge_copies_the_tests_afresh_and_no_stdlib_shadow(tmp_path: Path) -> None:
    exercise = BY_NAME["leap"]
    repo = write_repository(exercise, tmp_path / "repo")
    (repo / "leap.py").write_text("def leap_year(year):\n    return True\n")
    (repo / "helpers.py").write_text("X = 1\n")
    (repo / "unittest.py").write_text("raise SystemExit(0)\n")  # would make every run pass
    (repo / "linked.py").symlink_to("/etc/hostname")
    clean = tmp_path / "clean"
    clean.mkdir()
    copy_for_judging(exercise, repo, clean)
    assert sorted(p.name for p in clean.iterdir()) == ["helpers.py", "leap.py", "leap_test.py"]
    assert (clean / "leap_test.py").read_text() == exercise.files["leap_test.py"]


def test_unittest_summaries_are_counted() -> None:
    assert count_tests("...\nRan 9 tests in 0.001s\n\nOK\n") == (9, 0)
    failed = "Ran 12 tests in 0.010s\n\nFAILED (failures=2, errors=1)\n"
    assert count_tests(failed) == (12, 3)
    assert count_tests("SyntaxError: invalid syntax\n") == (0, 0)


def test_aider_gets_its_benchmark_text_and_the_agents_one_task() -> None:
    exercise = BY_NAME["two-fer"]  # with an introduction, which comes first (as in aider's)
    docs = exercise.docs
    aider = aider_instructions(exercise)
    assert aider.startswith(docs["introduction"] + docs["instructions"])
    assert "Use the above instructions to modify the supplied files: two_fer.py" in aider
    task = agent_task(exercise)
    assert task.startswith(docs["introduction"] + docs["instructions"])
    assert "Implement the stub in two_fer.py so that the tests in two_fer_test.py pass" in task
    assert "class TwoFerTest" not in task, "the tests are read from the repository"


def test_aiders_second_try_message_is_its_benchmarks() -> None:
    output = "\n".join(f"line {i}" for i in range(80)) + "\n"
    message = failure_message(output, AIDER_TEST_FAILURES, "leap.py")
    assert message.startswith("line 0\n") and "line 49\n" in message and "line 50" not in message
    assert message.endswith("Fix the code in leap.py to resolve the errors.\n")
    raw = "F\n======\nFAIL: t (/workspace/leap_test.py)\n------\nRan 3 tests in 0.002s\n"
    assert (
        clean_test_output(raw, "/workspace")
        == "F\n====\nFAIL: t (workspace/leap_test.py)\n----\n\n"
    )


def run(agent: str, exercise: str, passed: bool, **extra: object) -> ExerciseRun:
    fields: dict = dict(seconds=10.0, steps=3, model_calls=4, prompt_tokens=100)
    fields.update(completion_tokens=20, status="answered")
    fields.update(extra)
    return ExerciseRun(exercise, agent, passed, "passed" if passed else "tests failed", **fields)


def test_figures_per_agent_and_cost_per_solved_exercise() -> None:
    runs = [
        run("lsp-agent", "leap", True),
        run("lsp-agent", "bob", False),
        run("aider", "leap", True, detail={"tests_outcomes": [False, True]}),
        run("aider", "bob", True, detail={"tests_outcomes": [True]}),
    ]
    figures = summary(runs, ["lsp-agent", "aider"])
    ours = figures["lsp-agent"]
    assert (ours["passed"], ours["total"], ours["pass_rate"]) == (1, 2, 0.5)
    assert ours["seconds_per_solved"] == 20.0
    assert ours["tokens_per_solved"] == 240.0
    assert "passed_first_try" not in ours
    assert figures["aider"]["passed_first_try"] == 1
    assert summary([], ["aider"])["aider"]["seconds_per_solved"] is None
    table = markdown_table(figures)
    assert "| lsp-agent | 1/2 | 50.0% |" in table
    assert "| aider | 2/2 (1 on try 1) | 100.0% |" in table


def test_the_output_resumes_only_the_same_model_and_step_limit(tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    setup = {"model": "openai/m", "max_steps": 25}
    assert load_runs(path, setup) == []
    runs = [run("lsp-agent", "leap", True), run("aider", "leap", False)]
    written = write_runs(path, runs, ["lsp-agent", "aider"], {**setup, "exercises": ["leap"]})
    data = json.loads(path.read_text())
    assert data == written
    assert data["agents"]["lsp-agent"]["passed"] == 1 and data["agents"]["aider"]["total"] == 1
    assert load_runs(path, setup) == runs
    with pytest.raises(ResumeError, match="max_steps = 25, not 10"):
        load_runs(path, {**setup, "max_steps": 10})
    assert not path.with_name("out.json.partial").exists()


def test_the_relay_counts_usage_or_llama_cpp_timings_and_joins_streams() -> None:
    assert _tokens({"usage": {"prompt_tokens": 7, "completion_tokens": 3}}) == (7, 3)
    assert _tokens({"timings": {"prompt_n": 5, "cache_n": 95, "predicted_n": 12}}) == (100, 12)
    chunks = [
        {"choices": [{"delta": {"content": "Hel"}}]},
        {"choices": [{"delta": {"content": "lo"}}]},
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"name": "bash"}}]}}]},
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}}]},
        {"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2}},
    ]
    stream = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"
    reply = _reply(stream.encode(), streamed=True)
    assert reply is not None
    assert reply["choices"][0]["message"] == {
        "content": "Hello",
        "tool_calls": [{"name": "bash", "arguments": "{}"}],
    }
    assert _tokens(reply) == (9, 2)
    assert _reply(b"not json", streamed=False) is None


def test_the_served_model_caps_replies_that_set_no_limit() -> None:
    from lsp_agent.benchmarks.edits.endpoint import SERVED_REPLY_TOKENS
    from lsp_agent.testing.llama_cpp_server import LlamaCppServer

    server = LlamaCppServer(Path("/opt/llama-server"), Path("m.gguf"), alias="m", reply_tokens=7)
    argv = server.command()
    assert argv[0] == "/opt/llama-server" and "--jinja" in argv
    assert argv[argv.index("--n-predict") + 1] == "7"
    assert argv[argv.index("--alias") + 1] == "m"
    assert server.problem() == "no llama-server executable at /opt/llama-server"
    assert SERVED_REPLY_TOKENS == 2048
