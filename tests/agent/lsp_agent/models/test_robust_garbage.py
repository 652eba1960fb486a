"""Garbage-model test (issue 6): 200 malformed or hostile replies from a scripted HTTP endpoint,
through build_model + RobustModel into a real ToolCallingAgent. No run may crash; every run ends
by a final answer or at max steps."""

from __future__ import annotations

import itertools
import json
import random
import string
from pathlib import Path
from typing import Any

import pytest
from smolagents import ToolCallingAgent
from smolagents.memory import ActionStep
from smolagents.monitoring import LogLevel

from lsp_agent.models.factory import build_model
from lsp_agent.models.robust import RobustModel
from lsp_agent.settings import Settings
from lsp_agent.testing import ScriptedOpenAIServer, SpyTool

REPLIES = 200
PER_RUN = 4  # = max_steps: every run uses its four replies, then the closing summary
TIMEOUT_S = 1.0


def _random_text(rng: random.Random) -> str:
    alphabet = rng.choice([string.printable, string.ascii_letters + ' {}[]":,', "{}[]()'\"\\,:"])
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 600)))


def _broken_json(rng: random.Random) -> str:
    call = json.dumps(
        {"name": "read_file", "arguments": {"path": "src/" + "x" * rng.randint(1, 50)}}
    )
    return call[: rng.randint(1, len(call) - 1)]


def _hostile(rng: random.Random, marker: Path) -> dict[str, Any]:
    options: list[dict[str, Any]] = [
        {"text": f"read_file(path=__import__('os').system('touch {marker}'))"},
        {
            "text": '<tool_call>{"name": "rg_search", "arguments": {"pattern": '
            + f"open({marker!s})"
        },
        {"text": "[" * 5000 + "]" * 5000},
        {"text": "{" * 20_000},
        {"text": '{"name": "final_answer", "arguments": "{\\"answer\\": '},
        {"tool": "final_answer", "arguments": {}},
        {"tool": "final_answer", "arguments": {"answer": "a", "extra": "b"}},
        {"tool_calls": [{"tool": "read_file", "arguments": {"path": str(i)}} for i in range(50)]},
        {"tool": "read_file", "arguments": {"path": "a" * 100_000}},
        {"tool": "rg_search", "arguments": {"pattern": ["not", "a", "string"], "glob": 12}},
        {"tool": "read_file", "arguments": "{{{{{{"},
        {"tool": "read_file", "arguments": "null"},
        {"tool": "read_file\n; rm -rf /", "arguments": {"path": "a"}},
        {"text": "\x00\x01\x02 control \ufeff bytes \u202e reversed"},
        {"text": "Observation: I already called read_file.\nCalling tools: nothing"},
    ]
    return rng.choice(options)


def garbage_turns(seed: int, count: int, marker: Path) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    makers = [
        lambda: {"text": _random_text(rng)},
        lambda: {"text": _broken_json(rng)},
        lambda: {
            "tool": "".join(rng.choices(string.ascii_lowercase + "_", k=rng.randint(1, 30))),
            "arguments": {"path": "a"},
        },
        lambda: {
            "tool": rng.choice(["readfile", "read-file", "search", "ls", "bash"]),
            "arguments": {},
        },
        lambda: {
            "tool": "read_file",
            "arguments": {rng.choice(["file", "paths", "filename"]): "a.py"},
        },
        lambda: {
            "error": rng.choice(["error parsing tool call: raw='{'", "internal", "overloaded"]),
            "status": rng.choice([400, 401, 404, 429, 500, 502, 503]),
        },
        lambda: {
            "raw_body": rng.choice(
                [
                    "not json",
                    "",
                    "{}",
                    '{"choices": []}',
                    '{"choices": [{"message": null}]}',
                    "<html>502 Bad Gateway</html>",
                ]
            )
        },
        lambda: rng.choice([{"empty": True}, {"text": "   \n  "}]),
        lambda: {"drop_connection": True},
        lambda: _hostile(rng, marker),
    ]
    turns = [rng.choice(makers)() for _ in range(count)]
    for index in rng.sample(range(count), 3):  # a few answers slower than the timeout
        turns[index] = {"text": "too late", "delay_s": TIMEOUT_S + 0.3}
    return turns


def test_garbage_turns_are_deterministic_and_valid(tmp_path: Path) -> None:
    first = garbage_turns(6, REPLIES, tmp_path / "m")
    assert first == garbage_turns(6, REPLIES, tmp_path / "m")
    with ScriptedOpenAIServer(first) as server:  # every turn is a valid script turn
        assert server.remaining == REPLIES


def test_two_hundred_garbage_replies_never_crash_a_run(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    turns = garbage_turns(6, REPLIES, marker)
    read = SpyTool("read_file", {"path": "string"}, result="line 1\nline 2")
    search = SpyTool(
        "rg_search",
        {"pattern": "string", "glob": {"type": "string", "nullable": True}},
        result="a.py:1: x",
    )
    runs = [turns[i : i + PER_RUN] for i in range(0, REPLIES, PER_RUN)]
    served = 0
    with ScriptedOpenAIServer() as server:
        settings = Settings(model_id="openai/scripted", model_api_base=server.openai_base)
        for run_turns in runs:
            server.set_turns([*run_turns, {"text": "Summary: nothing usable."}])
            before = len(server.chat_requests)
            model = RobustModel(build_model(settings.model_config(), timeout_s=TIMEOUT_S))
            agent = ToolCallingAgent(
                tools=[read, search], model=model, max_steps=PER_RUN, verbosity_level=LogLevel.OFF
            )
            result = agent.run("Find the bug in a.py", return_full_result=True)
            actions = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
            assert result.state in {"success", "max_steps_error"}
            assert len(actions) <= PER_RUN + 1
            assert isinstance(result.output, str) and result.output
            sent = server.chat_requests[before:]
            # one request per model call, but for a resend of the same messages without
            # streaming after an empty streamed reply (native_replay)
            resent = sum(a["messages"] == b["messages"] for a, b in itertools.pairwise(sent))
            assert model.generate_calls == len(sent) - resent
            served += min(PER_RUN, len(server.chat_requests) - before)
    assert served == REPLIES
    assert not marker.exists()


@pytest.mark.parametrize(
    "reply", [{"empty": True}, {"error": "x", "status": 500}, {"drop_connection": True}]
)
def test_a_failed_closing_summary_still_ends_the_run(reply: dict[str, Any]) -> None:
    with ScriptedOpenAIServer([{"text": "prose"}, reply]) as server:
        settings = Settings(model_id="openai/scripted", model_api_base=server.openai_base)
        agent = ToolCallingAgent(
            tools=[],
            model=RobustModel(build_model(settings.model_config(), timeout_s=TIMEOUT_S)),
            max_steps=1,
            verbosity_level=LogLevel.OFF,
        )
        result = agent.run("anything", return_full_result=True)
    assert result.state == "max_steps_error"
    assert isinstance(result.output, str) and result.output
