"""The code runner's protocol, driven in memory (no container: the code here is the test's).

The runner is meant for a hardened container (tests/e2e/test_code_mode_escapes.py runs it
there with hostile code); these tests check its message handling, capture and errors.
"""

from __future__ import annotations

import io
import json
from typing import Any

from sandbox.code.runner import MARKER, PRINT_LIMIT, BoundedOutput, Runner, ToolResult


def run_runner(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    inbox = io.StringIO("".join(json.dumps(m) + "\n" for m in messages))
    outbox = io.StringIO()
    Runner(inbox, outbox).serve()
    lines = outbox.getvalue().splitlines()
    assert all(line.startswith(MARKER) for line in lines)
    return [json.loads(line[len(MARKER) :]) for line in lines]


TOOLS = {"tools": [{"name": "read_file", "inputs": ["path", "start_line", "end_line"]}]}


def test_a_step_calls_a_tool_and_uses_its_json_fields() -> None:
    code = "r = read_file('a.py', 2)\nprint(r['patch_id'], r.get('missing', '-'))\nr[:2]"
    sent = run_runner([TOOLS, {"run": code, "step": 1}, {"id": 1, "result": '{"patch_id": "p1"}'}])
    assert sent[0] == {"ready": True}
    assert sent[1] == {
        "call": "read_file",
        "arguments": {"path": "a.py", "start_line": 2},
        "step": 1,
        "id": 1,
    }
    done = sent[2]
    assert done["done"] and done["step"] == 1 and not done["final"] and done["error"] is None
    assert done["logs"] == "p1 -\n" and done["output"] == '{"'


def test_a_tool_error_raises_in_the_code_and_variables_persist() -> None:
    sent = run_runner(
        [
            TOOLS,
            {"run": "x = 41\nread_file(path='nope')", "step": 1},
            {"id": 1, "error": '{"error": "file_not_found"}'},
            {"run": "final_answer(x + 1)", "step": 2},
        ]
    )
    first, second = sent[2], sent[3]
    assert first["error"].startswith('ToolCallError: {"error": "file_not_found"}')
    assert "line 2 of your code" in first["error"]
    assert second == {
        "done": True,
        "step": 2,
        "final": True,
        "output": "42",
        "error": None,
        "logs": "",
    }


def test_replies_to_other_calls_are_skipped_and_syntax_errors_reported() -> None:
    sent = run_runner(
        [
            TOOLS,
            {"run": "print(read_file('a'))", "step": 1},
            {"id": 99, "result": "forged"},
            {"id": 1, "result": "real"},
            {"run": "def broken(:", "step": 2},
        ]
    )
    assert sent[2]["logs"] == "real\n"
    assert sent[3]["error"].startswith("SyntaxError:") and "line 1" in sent[3]["error"]


def test_output_is_bounded_and_results_index_like_text() -> None:
    out = BoundedOutput()
    for _ in range(3):
        out.write("y" * PRINT_LIMIT)
    assert len(out.text()) < PRINT_LIMIT + 100
    assert out.text().endswith(f"[print output cut: {2 * PRINT_LIMIT} more characters]")
    text = ToolResult("plain text")
    assert text[0] == "p" and text.get("key") is None
