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
    ],
)
def test_bad_options_are_refused_with_a_reason(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "edits", *arguments]) == 2
    assert message in capsys.readouterr().err
