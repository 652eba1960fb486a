"""The `lsp-agent` command line: subcommands, module entry point, exit codes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lsp_agent.cli.main import build_parser, main

SUBCOMMANDS = ("serve", "acp", "run", "demo", "doctor", "sandbox", "bench", "phoenix")


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lsp_agent", *args], capture_output=True, text=True, timeout=60
    )


def test_help_lists_every_subcommand() -> None:
    out = run_cli("--help")
    assert out.returncode == 0
    for name in SUBCOMMANDS:
        assert f"\n    {name} " in out.stdout


def test_console_script_and_module_print_the_same_help() -> None:
    console_script = Path(sys.executable).parent / "lsp-agent"
    assert console_script.is_file(), "the environment should install the lsp-agent script"
    script = subprocess.run(
        [str(console_script), "--help"], capture_output=True, text=True, timeout=60
    )
    assert script.returncode == 0
    assert script.stdout == run_cli("--help").stdout


def test_run_parses_the_documented_options() -> None:
    args = build_parser().parse_args(
        ["run", "fix it", "--repo", "/tmp", "--yes", "--max-steps", "5", "--model", "m"]
    )
    assert (args.task, str(args.repo), args.yes, args.max_steps, args.model) == (
        "fix it",
        "/tmp",
        True,
        5,
        "m",
    )


def test_bad_usage_exits_2() -> None:
    with pytest.raises(SystemExit) as exc:
        main(["no-such-command"])
    assert exc.value.code == 2


def test_unknown_benchmark_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "no-such-bench"]) == 2
    assert "choose from" in capsys.readouterr().err


def test_log_file_before_and_after_serve_both_parse(tmp_path) -> None:
    parser = build_parser()
    assert parser.parse_args(["--log-file", "a.log", "serve"]).log_file.name == "a.log"
    assert parser.parse_args(["serve", "--log-file", "b.log"]).log_file.name == "b.log"


def test_a_bench_whose_dependency_is_missing_says_which(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from lsp_agent.benchmarks import runner

    monkeypatch.setitem(
        runner.BENCHMARKS, "ghost", runner.BenchEntry("no_such_module_xyz", "measure", 1)
    )
    assert runner.run_bench("ghost") == 1
    err = capsys.readouterr().err
    assert "bench ghost cannot run" in err and "'no_such_module_xyz'" in err
