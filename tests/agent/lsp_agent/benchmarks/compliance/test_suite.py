"""The compliance suite (`lsp-agent bench models`): the reference solutions pass every level
through the real tools, and every checker fails a wrong outcome."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from lsp_agent.benchmarks.compliance.chart import write_chart
from lsp_agent.benchmarks.compliance.fixture_repo import (
    FIXTURE_FILES,
    changed_paths,
    make_fixture_repo,
)
from lsp_agent.benchmarks.compliance.levels import LEVELS, Level, select_levels
from lsp_agent.benchmarks.compliance.report import model_table
from lsp_agent.benchmarks.compliance.suite import (
    model_results,
    run_level_once,
    run_suite,
    scripted_reference,
    suite_settings,
)
from lsp_agent.cli.main import build_parser, main
from lsp_agent.models.scripted import ScriptedModel
from lsp_agent.settings import Settings
from tests import REPO_ROOT
from tests.compliance import failures
from tests.jobs import tool_texts

SETTINGS = suite_settings(Settings(sandbox_backend="none"), "scripted", keep_phoenix=False)
BY_KEY = {level.key: level for level in LEVELS}


def run_turns(level: Level, turns: list[dict[str, Any]]):
    model = ScriptedModel(turns)
    return run_level_once(level, SETTINGS, model), model


def test_the_fixture_is_a_clean_git_repository(tmp_path: Path) -> None:
    repo = make_fixture_repo(tmp_path / "r")
    assert changed_paths(repo) == []
    assert {
        str(p.relative_to(repo)) for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts
    } == set(FIXTURE_FILES)
    (repo / "calc.py").write_text("x = 1\n")
    (repo / "new.txt").write_text("n\n")
    assert changed_paths(repo) == ["calc.py", "new.txt"]


def test_scripted_reference_passes_every_level_in_its_own_steps() -> None:
    stats = run_suite(LEVELS, 1, SETTINGS, scripted_reference)
    results = model_results(stats)
    assert failures(results) == {}
    for level in LEVELS:
        figures = results["levels"][level.key]
        assert figures["steps_mean"] == len(level.reference) <= level.max_steps
        assert figures["prompt_tokens_mean"] > 0 and figures["completion_tokens_mean"] > 0
    assert results["total"] | {"seconds": 0} == results["total"] | {
        "runs": 11,
        "passed": 11,
        "pass_rate": 1.0,
        "levels_passed": 11,
        "levels": 11,
        "steps": sum(len(level.reference) for level in LEVELS),
        "seconds": 0,
    }


@pytest.mark.parametrize("level", LEVELS, ids=lambda level: level.key)
def test_reference_tool_calls_succeed_except_the_deliberate_wrong_path(level: Level) -> None:
    record, model = run_turns(level, list(level.reference))
    assert record.passed, record
    seen = tool_texts(model)
    assert len(seen) == len(level.reference) - 1  # every call but final_answer
    errors = [i for i, text in enumerate(seen) if text.startswith('{"error"')]
    if level.key == "L7":
        assert errors == [0]
        hint = json.loads(seen[0])["recovery_suggestion"]
        assert "Closest existing paths" in hint and '"calc.py"' in hint
    else:
        assert errors == [], seen


@pytest.mark.parametrize("level", LEVELS, ids=lambda level: level.key)
def test_a_wrong_answer_without_changes_fails_every_level(level: Level) -> None:
    record, _ = run_turns(level, [{"final_answer": "I could not find it; the answer is 7."}])
    assert record.status == "answered"
    assert not record.passed, record


@pytest.mark.parametrize(
    "key", [level.key for level in LEVELS if "final_answer" in level.reference[-1]]
)
def test_the_right_answer_without_final_answer_fails(key: str) -> None:
    level = BY_KEY[key]
    stall = [
        {"tool": "list_files", "arguments": {"pattern": f"*.x{i}"}} for i in range(level.max_steps)
    ]
    answer = level.reference[-1]["final_answer"]
    record, _ = run_turns(level, [*stall, {"text": answer}])
    if key in ("L6", "L8"):  # judged on files: nothing was patched
        assert record.status == "max_steps" and " unchanged" in record.reason
    else:
        assert record.status == "max_steps" and answer in record.answer
        assert "no final_answer" in record.reason
    assert not record.passed


def test_a_right_answer_that_also_changed_a_file_fails() -> None:
    record, _ = run_turns(
        BY_KEY["L10"],  # a task that lists no tool call (L2's lists read_file)
        [
            {
                "tool": "propose_patch",
                "arguments": {"path": "config.py", "old": "473", "new": "474"},
            },
            {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
            {"final_answer": "The code name is Bluefin."},
        ],
    )
    assert not record.passed and record.reason == "changed files: config.py"


def patch_turns(path: str, old: str, new: str) -> list[dict[str, Any]]:
    return [
        {"tool": "propose_patch", "arguments": {"path": path, "old": old, "new": new}},
        {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
        {"final_answer": "Fixed."},
    ]


@pytest.mark.parametrize(
    ("key", "path", "old", "new", "reason"),
    [
        ("L6", "calc.py", "(len(values) + 1)", "(len(values) - 1)", "calc.py still wrong"),
        ("L6", "calc.py", "zip(values, weights)", "zip(values, values)", "calc.py still wrong"),
        ("L6", "config.py", "473", "474", "calc.py unchanged"),
        ("L8", "report.py", "items[1:]", "items[2:]", "report.py still wrong"),
        ("L8", "calc.py", "(len(values) + 1)", "len(values)", "report.py unchanged"),
    ],
)
def test_a_wrong_fix_fails(key: str, path: str, old: str, new: str, reason: str) -> None:
    record, _ = run_turns(BY_KEY[key], patch_turns(path, old, new))
    assert record.status == "answered"
    assert not record.passed and record.reason.startswith(reason), record


def test_a_right_fix_that_also_touches_another_file_fails() -> None:
    turns = [
        *patch_turns("calc.py", "(len(values) + 1)", "len(values)")[:2],
        *patch_turns("config.py", "473", "474")[:1],
        {"tool": "apply_patch", "arguments": {"patch_id": "p2"}},
        {"final_answer": "Fixed."},
    ]
    record, _ = run_turns(BY_KEY["L6"], turns)
    assert not record.passed and record.reason == "also changed: config.py", record


def test_select_levels() -> None:
    assert [level.key for level in select_levels(("3", "l0", " L8"))] == ["L0", "L3", "L8"]
    assert select_levels(()) == LEVELS
    with pytest.raises(ValueError, match="unknown level 'L11'"):
        select_levels(("L11",))


def test_suite_settings_keep_the_sandbox_and_turn_off_unrequested_phoenix() -> None:
    base = Settings(phoenix_enabled=True, sandbox_backend="local")
    settings = suite_settings(base, "embedded", keep_phoenix=False)
    assert (settings.model_id, settings.sandbox_backend, settings.phoenix_enabled) == (
        "embedded",
        "local",
        False,
    )
    assert suite_settings(base, "x", keep_phoenix=True).phoenix_enabled


def test_cli_writes_json_and_a_png(offline_cli: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output, chart = offline_cli / "out" / "s.json", offline_cli / "out" / "s.png"
    argv = ["bench", "models", "--model", "scripted", "--runs", "1"]
    assert main([*argv, "--levels", "L0,L6", "--output", str(output), "--chart", str(chart)]) == 0
    figures = json.loads(output.read_text())["models"]
    assert figures["levels"] == ["L0", "L6"]
    assert figures["command"] == "lsp-agent bench models --runs 1 --model scripted --levels L0,L6"
    total = figures["results"]["scripted"]["total"]
    assert (total["runs"], total["passed"]) == (2, 2)
    assert chart.read_bytes().startswith(b"\x89PNG") and chart.stat().st_size > 5000
    out = capsys.readouterr().out
    assert "| L6 | fix with a patch | 1/1 (100%) | 4 / 6 |" in out
    assert "| all | 2/2 levels passed | 2/2 (100%) |" in out


@pytest.mark.parametrize(
    ("argv", "env", "code", "message"),
    [
        (["--levels", "L11"], {}, 2, "unknown level 'L11'"),
        (["--subagents", "coder"], {}, 2, "unknown sub-agent 'coder'"),
        (["--planning-interval", "-1"], {}, 2, "--planning-interval must be 0..100"),
        (
            ["--model", "openai/x", "--levels", "L0"],
            {"MODEL_API_BASE": "http://127.0.0.1:9/v1"},
            1,
            "model openai/x:",
        ),
    ],
    ids=["unknown-level", "unknown-sub-agent", "bad-interval", "unreachable-model"],
)
def test_cli_rejects_bad_arguments_and_unreachable_models(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *,
    argv: list[str],
    env: dict[str, str],
    code: int,
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["bench", "models", *argv]) == code
    assert message in capsys.readouterr().err


def test_chart_groups_several_models(tmp_path: Path) -> None:
    stats = run_suite(select_levels(("L0", "L2")), 1, SETTINGS, scripted_reference)
    good = model_results(stats)
    bad = model_results(
        run_suite(
            select_levels(("L0", "L2")),
            1,
            SETTINGS,
            lambda level: ScriptedModel([{"final_answer": "no"}]),
        )
    )
    assert bad["total"]["passed"] == 0 and good["total"]["passed"] == 2
    figures = {"runs": 1, "levels": ["L0", "L2"], "results": {"a": good, "b": bad}}
    png = write_chart(figures, tmp_path / "two.png")
    assert png.read_bytes().startswith(b"\x89PNG")
    table = model_table(bad)
    assert table[2].startswith("| L0 | direct answer | 0/1 (0%) |")
    assert table[-1].startswith("| all | 0/2 levels passed | 0/2 (0%) |")


@pytest.mark.parametrize("key", ["L6", "L8"])
def test_the_sandbox_checks_a_fix_with_the_levels_own_test(key: str) -> None:
    """The fixture holds two bugs; each fix level's check runs only its own test."""
    level = BY_KEY[key]
    settings = suite_settings(Settings(sandbox_backend="local"), "scripted", keep_phoenix=False)
    model = ScriptedModel(list(level.reference))
    record = run_level_once(level, settings, model)
    assert record.passed, record
    proposed = json.loads(tool_texts(model)[-2])
    assert proposed["check"].startswith("applies: yes; check: passed"), proposed
    assert level.check_command in proposed["check"]


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("scripted", "scripted"),
        ("embedded", "embedded"),
        ("scripted-code", "scripted"),
        ("embedded-code", "embedded"),
    ],
)
def test_committed_results_match_the_docs(name: str, model: str) -> None:
    docs = REPO_ROOT / "docs"
    figures = json.loads((docs / "compliance" / f"{name}.json").read_text())["models"]
    text = (docs / "compliance.md").read_text()
    assert "\n".join(model_table(figures["results"][model])) in text
    documented = [
        build_parser().parse_args(shlex.split(line)[1:])
        for line in text.splitlines()
        if line.startswith("lsp-agent bench models") and f"{name}.json" in line
    ]
    ran = build_parser().parse_args(shlex.split(figures["command"])[1:])
    assert [(a.name, a.model, a.runs, a.levels, a.agent_type) for a in documented] == [
        (ran.name, ran.model, ran.runs, ran.levels, ran.agent_type)
    ]
    assert (docs / "compliance" / f"{name}.png").read_bytes().startswith(b"\x89PNG")


def test_a_change_to_the_wrong_function_is_never_applied_while_the_task_s_test_fails() -> None:
    """Asked to fix average(), Qwen2.5-Coder-1.5B in-process changed weighted_total(), asked
    again and had it applied (L6): the job knows the names its task mentions, and while
    test_average (which calls average()) fails as before, the change is refused every time."""
    level = BY_KEY["L6"]
    settings = suite_settings(Settings(sandbox_backend="local"), "scripted", keep_phoenix=False)
    wrong = {"path": "calc.py", "old": "zip(values, weights))", "new": "zip(values, weights)) / 2"}
    model = ScriptedModel(
        [
            {"tool": "propose_patch", "arguments": wrong},
            {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
            {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
            {"final_answer": "Changed weighted_total."},
        ]
    )
    record = run_level_once(level, settings, model)
    assert not record.passed
    refusals = [json.loads(text.split("\n\n[")[0]) for text in tool_texts(model)[1:3]]
    for refused in refusals:
        assert refused["message"].startswith(
            "p1 was not applied: test_average calls average(), which the task names,"
        ), refused
