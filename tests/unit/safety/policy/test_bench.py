"""Issue 16, class 9: the policy's work is linear and bounded (structure, not timing;
times are measured by `lsp-agent bench policy`)."""

from __future__ import annotations

import pytest

from safety.policy import CommandPolicy, Verdict
from safety.policy.bench import MIXED_COMMANDS, worst_cases
from safety.policy.bench import measure as benchmark
from safety.policy.shell import MAX_SYNTAX_NODES, parse

POLICY = CommandPolicy()


@pytest.mark.parametrize("stages", [2, 10, 150])
def test_pipeline_links_are_direct_so_their_number_is_linear(stages: int) -> None:
    parsed = parse(" | ".join(["cat"] * stages))
    assert sum(len(c.upstream) for c in parsed.commands) == stages - 1
    assert parsed.sources(stages - 1) == frozenset(range(stages - 1))


def test_sources_stop_at_the_limit() -> None:
    parsed = parse(" | ".join(["cat"] * 100))
    assert len(parsed.sources(99, limit=10)) == 11


@pytest.mark.parametrize(
    "command",
    [
        "|".join(["sh"] * 2666),
        ";".join(["a"] * 4000),
        "cat" + " a" * 3990,
        "echo a" + " | cat" * 1300 + " | sh",
    ],
)
def test_floods_up_to_the_length_limit_are_asked_not_walked(command: str) -> None:
    decision = POLICY.evaluate(command[:8000])
    assert decision.verdict is Verdict.REQUIRE_APPROVAL
    assert decision.rule == "input.too_complex"


def test_the_node_budget_applies_to_inner_scripts_too() -> None:
    inner = ";".join(["ls"] * 300)
    assert not parse(inner).too_complex
    assert not parse(f"bash -c '{inner}'").too_complex
    assert parse(f"bash -c '{inner}'; {inner}").too_complex
    assert parse(f"sh <<'EOF'\n{inner}\nEOF\n{inner}").too_complex


def test_worst_cases_are_within_the_limits() -> None:
    cases = worst_cases(POLICY)
    assert len(cases) >= 40
    for name, command in cases.items():
        assert len(command) <= POLICY.rules.max_command_chars, name
        if name.endswith("(node budget)"):
            assert not parse(command, max_nodes=MAX_SYNTAX_NODES).too_complex, name
            assert POLICY.evaluate(command).rule != "input.too_complex", name


def test_the_mixed_corpus_mixes_verdicts() -> None:
    verdicts = [POLICY.evaluate(c).verdict for c in MIXED_COMMANDS]
    assert verdicts.count(Verdict.ALLOW) >= len(MIXED_COMMANDS) // 2
    assert Verdict.REQUIRE_APPROVAL in verdicts and Verdict.DENY in verdicts


def test_benchmark_reports_the_figures_the_issue_asks_for() -> None:
    figures = benchmark(200)
    for key in ("median_us", "median_rate_per_s", "worst_ms", "worst_chars", "worst_shape"):
        assert key in figures, key
    assert isinstance(figures["worst_shape"], str) and figures["worst_shape"]
