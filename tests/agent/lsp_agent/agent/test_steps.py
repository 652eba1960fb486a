"""What a step's progress line says about its observation: an error or not."""

from __future__ import annotations

import json

from lsp_agent.agent.observations import is_error_observation, summarize_observation

ERROR = json.dumps({"error": "not_found", "message": "no file x.py", "tool": "read_file"})


def test_the_error_schema_is_an_error_also_with_a_loop_note_after_it() -> None:
    assert is_error_observation(ERROR)
    assert is_error_observation(ERROR + "\n[warning] the same call failed twice; try another")
    assert not is_error_observation('{"patch_id": "p1", "check": "passed"}')
    assert not is_error_observation("plain text mentioning error and message")
    assert not is_error_observation("")


def test_the_progress_line_of_an_error_is_its_message() -> None:
    assert summarize_observation(ERROR) == "no file x.py"
