"""`lsp-agent bench complete` end to end, against a scripted FIM server on 127.0.0.1: the typing
session through the real server over stdio, the same requests straight to the backend, the
cache, the quality positions — every figure is there and means what it says."""

from __future__ import annotations

from typing import Any

import pytest

from lsp_agent.benchmarks.completion import (
    BLOCK_LINES,
    held_out_blocks,
    held_out_lines,
    measure,
    typing_steps,
)
from lsp_agent.benchmarks.runner import BenchError, BenchOptions
from tests.fim_stub import FimStub, fim_stub


def test_typing_steps_go_word_by_word_after_the_indentation() -> None:
    assert typing_steps("    return self.route(message)") == [
        "    ",
        "    return",
        "    return ",
        "    return self",
    ]


def test_the_held_out_lines_are_code_lines_of_the_installed_package() -> None:
    lines = held_out_lines(5)
    assert len({(t.rel, t.line) for t in lines}) == 5
    assert all(t.rel.startswith("acp/") and t.text.startswith(" ") for t in lines)


def test_a_block_is_consecutive_code_lines_of_one_file() -> None:
    blocks = held_out_blocks(4)
    assert len({(b[0].rel, b[0].line) for b in blocks}) == 4
    for block in blocks:
        assert len(block) == BLOCK_LINES
        assert [t.line for t in block] == list(range(block[0].line, block[0].line + BLOCK_LINES))
        assert len({t.rel for t in block}) == 1 and all(t.text.startswith(" ") for t in block)


def test_the_bench_measures_through_the_server_and_straight_to_the_backend(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def reply(body: dict[str, Any]) -> str:
        return "value_1 = compute(value_0)"

    with fim_stub(FimStub(reply)) as stub:
        monkeypatch.setenv("COMPLETION_API_BASE", stub.url)
        figures = measure(2, BenchOptions(models=("openai/stub",)))
        direct = [body for path, body in stub.calls if path == "/infill"]
    assert figures["model"] == "openai/stub"
    assert figures["typing_requests"] >= 2 and figures["typing_p50_ms"] > 0
    assert figures["typing_p50_ms"] <= figures["typing_p90_ms"] <= figures["typing_p95_ms"]
    assert figures["keystrokes"] >= figures["typing_requests"] and figures["keystroke_p90_ms"] > 0
    assert 0 < figures["in_line_requests"] <= figures["typing_requests"]
    # each block's lines after its first begin after Enter: 2 blocks, BLOCK_LINES - 1 each
    assert figures["line_start_p50_ms"] > 0
    assert figures["jumps"] + figures["first_requests"] == 2 and figures["first_request_ms"] > 0
    assert figures["in_line_prompt_tokens_p50"] > 0
    assert figures["direct_p50_ms"] > 0 and "overhead_pct" in figures
    assert figures["prompt_tokens_p50"] <= figures["prompt_tokens_p90"]
    assert figures["cache_hits"] == figures["cache_requests"] >= 1
    assert figures["quality_positions"] == 6 and figures["exact_match_lsp"] == 0.0
    assert figures["code_action_p99_ms"] > 0
    assert "during_job_p50_ms" not in figures  # only with an embedded model
    # every model request went twice: through the server, then straight to the backend (the
    # first request of each file too, which the figures leave out)
    assert len(direct) % 2 == 0 and len(direct) >= 2 * (figures["typing_requests"] + 6)


def test_a_model_id_that_is_no_completion_model_is_refused() -> None:
    with pytest.raises(BenchError, match="COMPLETION_MODEL_ID"):
        measure(1, BenchOptions(models=("gpt-4",)))
