"""`lsp-agent acp` end to end with the official ACP client library: a task runs with the
scripted model, the fix is approved and written, a rejection leaves the file byte-identical,
a cancel answers `cancelled` and nothing more runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.acp.conftest import APP, agent_env, run_client

FIXED = "def add(a, b):\n    return a + b\n"
FIX_TURNS: list[dict[str, Any]] = [
    {"tool": "read_file", "arguments": {"path": "app.py"}},
    {
        "tool": "propose_patch",
        "arguments": {"path": "app.py", "old": "return a - b", "new": "return a + b"},
    },
    {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
    {"tool": "list_files", "arguments": {"pattern": "*.py"}},
    {"final_answer": "add() now adds."},
]


def scenario(tmp_path: Path, workspace: Path, **prompt: Any) -> dict[str, Any]:
    fs = prompt.pop("fs", {"read": True, "write": True})
    extra = prompt.pop("extra", {})
    return {
        "cwd": str(workspace),
        "env": agent_env(tmp_path, prompt.pop("script", FIX_TURNS)),
        "fs": fs,
        "prompts": [{"text": "fix add in app.py", **prompt}],
        **extra,
    }


def first_turn(acp_client: Path, tmp_path: Path, workspace: Path, **prompt: Any) -> dict[str, Any]:
    """The client's run of `scenario(tmp_path, workspace, **prompt)`: its first turn."""
    return run_client(acp_client, tmp_path, scenario(tmp_path, workspace, **prompt))["turns"][0]


def updates(turn: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [u for u in turn["updates"] if u["sessionUpdate"] == kind]


def tool_titles(turn: dict[str, Any]) -> list[str]:
    return [u["title"] for u in updates(turn, "tool_call")]


def agent_text(turn: dict[str, Any]) -> str:
    return "".join(u["content"]["text"] for u in updates(turn, "agent_message_chunk"))


def test_an_approved_fix_is_written_through_the_client(
    acp_client: Path, tmp_path: Path, workspace: Path
) -> None:
    out = run_client(acp_client, tmp_path, scenario(tmp_path, workspace, permission="allow_once"))
    assert out["initialize"]["protocolVersion"] == 1
    assert out["initialize"]["agentCapabilities"]["loadSession"] is False
    turn = out["turns"][0]
    assert turn["response"] == {"stopReason": "end_turn"}
    app = str(workspace / "app.py")
    assert (workspace / "app.py").read_text() == FIXED
    assert turn["writes"] == [app]  # written by the client (fs/write_text_file)
    assert app in turn["reads"]  # read through the client (fs/read_text_file)
    calls = updates(turn, "tool_call")
    assert [(c["title"], c["kind"]) for c in calls] == [
        ("read_file app.py", "read"),
        ("propose_patch app.py", "edit"),
        ("apply_patch p1", "edit"),
        ("list_files *.py", "search"),
    ]
    assert all(c["status"] == "in_progress" for c in calls)
    finished = {
        u["toolCallId"]: u["status"]
        for u in updates(turn, "tool_call_update")
        if u.get("status") in ("completed", "failed")
    }
    assert finished == {c["toolCallId"]: "completed" for c in calls}
    (ask,) = turn["permissions"]
    assert ask["toolCall"]["toolCallId"] == calls[2]["toolCallId"]
    assert {o["kind"] for o in ask["options"]} == {"allow_once", "reject_once"}
    (diff,) = [c for c in ask["toolCall"]["content"] if c["type"] == "diff"]
    assert diff == {"type": "diff", "path": app, "oldText": APP, "newText": FIXED}
    assert ask["toolCall"]["locations"] == [{"path": app}]
    # the model's words, then the facts of what the job did (said beside, never instead)
    assert agent_text(turn) == "add() now adds.\n\nApplied p1 to app.py; not checked (no sandbox)."


def _turn_that_writes_nothing(
    acp_client: Path, tmp_path: Path, workspace: Path, permission: str, stop_reason: str
) -> dict[str, Any]:
    """The client answers the permission request with `permission`: no byte of app.py changes."""
    before = (workspace / "app.py").read_bytes()
    turn = first_turn(acp_client, tmp_path, workspace, permission=permission)
    assert turn["response"] == {"stopReason": stop_reason}
    assert (workspace / "app.py").read_bytes() == before
    assert turn["writes"] == []
    return turn


def test_a_rejected_fix_changes_no_byte(acp_client: Path, tmp_path: Path, workspace: Path) -> None:
    turn = _turn_that_writes_nothing(acp_client, tmp_path, workspace, "reject_once", "end_turn")
    apply_call = updates(turn, "tool_call")[2]
    assert apply_call["title"] == "apply_patch p1"
    ends = [
        u
        for u in updates(turn, "tool_call_update")
        if u["toolCallId"] == apply_call["toolCallId"] and u.get("status") == "failed"
    ]
    assert ends and "rejected" in ends[-1]["content"][0]["content"]["text"]


def test_a_cancel_answers_cancelled_and_nothing_more_runs(
    acp_client: Path, tmp_path: Path, workspace: Path
) -> None:
    turn = _turn_that_writes_nothing(acp_client, tmp_path, workspace, "cancel", "cancelled")
    # The turn after apply_patch (list_files) never ran: no model call after the cancel.
    assert tool_titles(turn) == ["read_file app.py", "propose_patch app.py", "apply_patch p1"]
    # Every tool call the client saw was ended before the answer.
    ended = {
        u["toolCallId"]
        for u in updates(turn, "tool_call_update")
        if u.get("status") in ("completed", "failed")
    }
    assert ended == {c["toolCallId"] for c in updates(turn, "tool_call")}
    assert "Cancelled" in agent_text(turn)


def test_a_cancel_ends_the_turn_even_if_the_client_never_answers_the_question(
    acp_client: Path, tmp_path: Path, workspace: Path
) -> None:
    turn = first_turn(acp_client, tmp_path, workspace, permission="cancel_and_never_answer")
    assert turn["response"] == {"stopReason": "cancelled"}
    assert turn["writes"] == [] and (workspace / "app.py").read_text() == APP
    assert tool_titles(turn) == ["read_file app.py", "propose_patch app.py", "apply_patch p1"]


def test_a_cancel_between_steps_stops_the_job(
    acp_client: Path, tmp_path: Path, workspace: Path
) -> None:
    slow = [{**FIX_TURNS[0], "delay_s": 0.5}, *({**t, "delay_s": 1.0} for t in FIX_TURNS[1:])]
    turn = first_turn(acp_client, tmp_path, workspace, script=slow, cancelOn="tool_call")
    assert turn["response"] == {"stopReason": "cancelled"}
    assert tool_titles(turn) == ["read_file app.py"]
    assert turn["permissions"] == [] and turn["writes"] == []
    assert (workspace / "app.py").read_text() == APP


def test_without_client_file_access_the_disk_writer_applies_the_fix(
    acp_client: Path, tmp_path: Path, workspace: Path
) -> None:
    turn = first_turn(
        acp_client, tmp_path, workspace, permission="allow_once", fs={"read": False, "write": False}
    )
    assert turn["response"] == {"stopReason": "end_turn"}
    assert turn["reads"] == [] and turn["writes"] == []
    assert (workspace / "app.py").read_text() == FIXED


def test_the_agent_sees_the_clients_unsaved_buffer(
    acp_client: Path, tmp_path: Path, workspace: Path
) -> None:
    unsaved = "# edited, not saved\n" + APP
    app = str(workspace / "app.py")
    turn = first_turn(
        acp_client, tmp_path, workspace, permission="allow_once", extra={"buffers": {app: unsaved}}
    )
    (diff,) = [c for c in turn["permissions"][0]["toolCall"]["content"] if c["type"] == "diff"]
    assert diff["oldText"] == unsaved
    assert (workspace / "app.py").read_text() == "# edited, not saved\n" + FIXED


def test_a_prompt_while_one_runs_is_refused_and_the_first_finishes(
    acp_client: Path, tmp_path: Path, workspace: Path
) -> None:
    # the answer while p1 is proposed and not applied is refused once; said again, it stands,
    # and the job starts again once (agent.fresh_start): the same twice more
    slow = [
        {**FIX_TURNS[0], "delay_s": 0.2},
        {**FIX_TURNS[1], "delay_s": 1.0},
        *[FIX_TURNS[-1]] * 4,
    ]
    turn = first_turn(
        acp_client, tmp_path, workspace, script=slow, promptWhileRunning="and also this"
    )
    assert turn["secondResult"]["error"]["code"] == -32600
    assert "already running" in turn["secondResult"]["error"]["data"]["details"]
    assert turn["response"] == {"stopReason": "end_turn"}
    shown = agent_text(turn)  # the second attempt's notice, then the answer
    assert shown.startswith("lsp-agent: The agent answered without making the change"), shown
    assert "\nadd() now adds.\n\n" in shown


def test_mcp_servers_from_the_client_are_accepted_and_recorded(
    acp_client: Path, tmp_path: Path, workspace: Path
) -> None:
    servers = [{"name": "files", "command": "/bin/false", "args": [], "env": []}]
    out = run_client(
        acp_client,
        tmp_path,
        scenario(tmp_path, workspace, script=[FIX_TURNS[-1]], extra={"mcpServers": servers}),
    )
    assert out["turns"][0]["response"] == {"stopReason": "end_turn"}
    assert "1 MCP server(s) from the client recorded (files)" in out["stderr"]
    # offered like an untrusted MCP_CONFIG entry: /bin/false does not start, and says so
    assert "MCP server 'files' did not start" in out["stderr"]


def test_a_patch_made_stale_while_asking_is_not_written(
    acp_client: Path, tmp_path: Path, workspace: Path
) -> None:
    app = str(workspace / "app.py")
    edited = APP + "# the user typed this while the question was open\n"
    turn = first_turn(
        acp_client, tmp_path, workspace, permission="allow_once", editOnPermission={app: edited}
    )
    assert turn["writes"] == []
    assert (workspace / "app.py").read_text() == APP
    apply_id = updates(turn, "tool_call")[2]["toolCallId"]
    (end,) = [
        u
        for u in updates(turn, "tool_call_update")
        if u["toolCallId"] == apply_id and u.get("status") in ("completed", "failed")
    ]
    text = end["content"][0]["content"]["text"]
    assert "changed since p1 was proposed" in text and "not applied" in text


def test_allow_always_covers_that_exact_command_only(
    acp_client: Path, tmp_path: Path, workspace: Path
) -> None:
    script = [
        {"tool": "run_cmd", "arguments": {"command": "tar -tf a.tar"}},
        {"tool": "run_cmd", "arguments": {"command": "tar -tf a.tar"}},
        {"tool": "run_cmd", "arguments": {"command": "tar -tf b.tar"}},
        {"final_answer": "listed."},
    ]
    turn = first_turn(acp_client, tmp_path, workspace, script=script, permission="allow_always")
    assert [c["kind"] for c in updates(turn, "tool_call")] == ["execute"] * 3
    asked = [p["toolCall"]["title"] for p in turn["permissions"]]
    assert asked == ["Run `tar -tf a.tar`", "Run `tar -tf b.tar`"]  # a.tar once: the rule
    options = turn["permissions"][0]["options"]
    assert [o["kind"] for o in options] == ["allow_once", "allow_always", "reject_once"]
    always = next(o for o in options if o["kind"] == "allow_always")
    assert "exact command" in always["name"] and "8 h" in always["name"]


def test_a_sensitive_file_is_never_asked_of_the_client(
    acp_client: Path, tmp_path: Path, workspace: Path
) -> None:
    secret = workspace / "deploy.env"
    secret.write_text("TOKEN=do-not-leak\n", encoding="utf-8")
    script = [
        {"tool": "read_file", "arguments": {"path": "deploy.env"}},
        {"final_answer": "could not read it"},
    ]
    out = run_client(acp_client, tmp_path, scenario(tmp_path, workspace, script=script))
    turn = out["turns"][0]
    assert str(secret) not in turn["reads"]  # refused before the client is asked
    (start,) = updates(turn, "tool_call")
    (end,) = [u for u in updates(turn, "tool_call_update") if u.get("status") == "failed"]
    assert end["toolCallId"] == start["toolCallId"]
    assert "do-not-leak" not in json.dumps(out)


def test_plans_are_plan_updates_and_the_explorer_is_one_tool_call(
    acp_client: Path, tmp_path: Path, workspace: Path
) -> None:
    """AGENT_PLANNING_INTERVAL and AGENT_SUBAGENTS=explorer through the official client."""
    script = [
        {"text": "1. Ask the explorer about add.\n2. Answer.\n<end_plan>"},
        {"tool": "explorer", "arguments": {"task": "What does add() in app.py return?"}},
        {"tool": "read_file", "arguments": {"path": "app.py"}},
        {"final_answer": "add() returns a - b."},
        {"final_answer": "add() subtracts."},
    ]
    setup = scenario(tmp_path, workspace, script=script, text="What does add() in app.py do?")
    setup["env"] |= {"AGENT_PLANNING_INTERVAL": "5", "AGENT_SUBAGENTS": "explorer"}
    out = run_client(acp_client, tmp_path, setup)
    turn = out["turns"][0]
    assert turn["response"] == {"stopReason": "end_turn"}
    (plan,) = updates(turn, "plan")
    assert [e["content"] for e in plan["entries"]] == [
        "1. Ask the explorer about add.",
        "2. Answer.",
    ]
    calls = updates(turn, "tool_call")
    assert [(c["title"], c["kind"]) for c in calls] == [
        ("explorer What does add() in app.py return?", "search")
    ]
    assert "add() subtracts." in agent_text(turn)
    assert (workspace / "app.py").read_text() == APP
