"""The peer driver's aider protocol texts (it runs in the peer container; these parts are
plain functions)."""

from __future__ import annotations

from lsp_agent.benchmarks.edits.peers.peer_driver import clean_test_output, failure_message
from lsp_agent.benchmarks.edits.task import AIDER_TEST_FAILURES


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
