"""The relay's token counting and stream joining."""

from __future__ import annotations

import json

from lsp_agent.benchmarks.edits.model_meter import _reply, _tokens


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
