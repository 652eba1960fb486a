"""`bench edits` refuses what it cannot run before it starts anything (no Docker needed)."""

from __future__ import annotations

import pytest

from lsp_agent.cli.main import main


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--peers", "codex"], "unknown peer 'codex'; choose from: aider, mini-swe-agent"),
        (["--peers-only"], "--peers-only needs --peers"),
        (["--exercises", "leap,lepa"], "unknown exercise 'lepa'"),
        (["--sample", "200"], "--sample must be 1..133"),
        (["--model", "a", "--model", "b"], "bench edits runs one model"),
        (["--agent-type", "code"], "the scripted model plays tool calls"),
    ],
)
def test_bad_options_are_refused_with_a_reason(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "edits", *arguments]) == 2
    assert message in capsys.readouterr().err


def test_the_command_line_says_the_agent_type_when_it_is_not_the_default() -> None:
    from lsp_agent.benchmarks.edits.bench import command_line
    from lsp_agent.benchmarks.runner import BenchOptions

    code = BenchOptions(agent_type="code", sample=2)
    assert command_line(code, "embedded:qwen2.5-coder-1.5b", ["leap", "say"]) == (
        "lsp-agent bench edits --model embedded:qwen2.5-coder-1.5b --sample 2 --agent-type code"
    )
    assert "--agent-type" not in command_line(BenchOptions(), "scripted", ["leap"])
