"""The `lspAgent.*` commands: run returns at once, one job per workspace, cancel, approve,
reject, status; bad arguments are JSON-RPC errors and the server keeps serving."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.lsp.conftest import APP, edit_patch, job_end, observation, use_script
from tests.lsp.editor import EditorClient, start_editor, wait_for

INVALID_PARAMS = -32602
REQUEST_FAILED = -32803


def pause(flag: Path) -> dict[str, Any]:
    return {"tool": "pause", "arguments": {"until": str(flag)}}


async def rejected(call: Any) -> JsonRpcException:
    with pytest.raises(JsonRpcException) as caught:
        await call
    return caught.value


BAD_ARGUMENTS: list[tuple[str, list[Any], str]] = [
    ("lspAgent.run", [], "Expected 1 arguments, got 0"),
    ("lspAgent.run", ["fix it"], "one object argument"),
    ("lspAgent.run", [{"task": ""}], "`task` must be a non-empty string"),
    ("lspAgent.run", [{"task": 5}], "`task` must be a non-empty string"),
    ("lspAgent.run", [{"task": "", "ask": True}], "the client should prompt"),
    ("lspAgent.run", [{"task": "t", "uri": 3}], "`uri` must be"),
    ("lspAgent.run", [{"task": "t", "range": {"start": {"line": -1}}}], "range.start.line"),
    ("lspAgent.run", [{"task": "t", "range": "all"}], "range must be an object"),
    ("lspAgent.run", [{"task": "t", "uri": "file:///elsewhere/x.py"}], "not inside"),
    ("lspAgent.cancel", [], "Expected 1 arguments, got 0"),
    ("lspAgent.cancel", [{"jobId": "x"}], '{"jobId": N}'),
    ("lspAgent.cancel", [{"jobId": 99}], "there is no job 99"),
    ("lspAgent.approve", [], "Expected 1 arguments, got 0"),
    ("lspAgent.approve", [{"patchId": "a1"}, {}], "Expected 1 arguments, got 2"),
    ("lspAgent.approve", [{"patchId": "a9"}], "no pending approval 'a9'"),
    ("lspAgent.reject", [{"patchId": []}], '{"patchId": "a1"}'),
]


async def test_bad_arguments_are_invalid_params(editor: EditorClient) -> None:
    for name, arguments, words in BAD_ARGUMENTS:
        error = await rejected(editor.command(name, *arguments))
        assert error.code == INVALID_PARAMS, (name, arguments)
        assert words in error.message, (name, arguments, error.message)
    assert (await editor.command("lspAgent.status"))["jobs"] == []


async def test_unknown_command_is_an_error(editor: EditorClient) -> None:
    error = await rejected(editor.command("lspAgent.nope", {}))
    assert error.code == INVALID_PARAMS and "lspAgent.nope" in error.message
    caps = editor.init_result.capabilities.execute_command_provider
    assert caps is not None and set(caps.commands) == {
        "lspAgent.run",
        "lspAgent.cancel",
        "lspAgent.approve",
        "lspAgent.reject",
        "lspAgent.status",
        "lspAgent.prepare",
        "lspAgent.undo",
    }


async def test_run_answers_at_once_and_a_second_run_is_refused(
    editor: EditorClient, workspace: Path
) -> None:
    flag = workspace.parent / "go"
    use_script(editor, [pause(flag), {"final_answer": "first"}])
    started = await editor.run(task="slow job")
    assert set(started) == {"jobId", "progressToken"}
    status = await editor.command("lspAgent.status")
    assert status["job"]["jobId"] == started["jobId"] and status["job"]["state"] == "running"
    assert status["job"]["task"] == "slow job"

    error = await rejected(editor.run(task="another"))
    assert error.code == REQUEST_FAILED
    assert f"job {started['jobId']} is still running" in error.message
    assert "lspAgent.cancel" in error.message
    await wait_for(
        lambda: any(
            m.type == types.MessageType.Warning and "still running" in m.message
            for m in editor.messages
        ),
        "the refusal shown to the user",
    )
    flag.touch()
    assert "first" in (await job_end(editor, started["jobId"])).message
    use_script(editor, [{"final_answer": "second"}])
    again = await editor.run(task="now it may run")
    assert again["jobId"] == started["jobId"] + 1
    assert "second" in (await job_end(editor, again["jobId"])).message


async def test_cancel_command_stops_the_job(editor: EditorClient, workspace: Path) -> None:
    use_script(editor, [pause(workspace.parent / "never"), {"final_answer": "unreachable"}])
    started = await editor.run(task="long")
    await wait_for(
        lambda: any(
            "pause" in str(r) for r in editor.progress_reports.get(started["progressToken"], [])
        ),
        "the pause step",
    )
    answer = await editor.command("lspAgent.cancel", {"jobId": started["jobId"]})
    assert answer == {"jobId": started["jobId"], "cancelled": True, "state": "cancelling"}
    end = await job_end(editor, started["jobId"])
    assert "cancelled" in end.message
    status = await editor.command("lspAgent.status")
    assert status["job"] is None and status["lastJob"]["status"] == "cancelled"
    again = await editor.command("lspAgent.cancel", started["jobId"])
    assert again["cancelled"] is False and again["state"] == "finished"


async def held_command_approval(
    editor: EditorClient, command: str, answer: str
) -> tuple[Path, Any]:
    """A job (local sandbox) whose run_cmd `command` needs approval; its dialog is held open."""
    editor.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"sandboxBackend": "local"})
    )
    script = use_script(
        editor,
        [
            {"tool": "run_cmd", "arguments": {"command": command}},
            {"final_answer": answer},
        ],
    )
    editor.hold_dialogs = asyncio.Event()
    started = await editor.run(task="make a file")
    await wait_for(lambda: editor.message_requests, "the approval dialog")
    return script, started


async def test_command_approval_through_lspagent_approve(
    editor: EditorClient, workspace: Path
) -> None:
    """A command that needs approval: the dialog stays open, lspAgent.approve answers."""
    script, started = await held_command_approval(editor, "touch made-by-agent.txt", "ran it")
    question = editor.message_requests[0]
    assert [a.title for a in question.actions or []] == ["Run", "Reject"]
    assert "(a1)" in question.message and "touch made-by-agent.txt" in question.message
    status = await editor.command("lspAgent.status")
    assert status["pendingApprovals"] == [
        {
            "approvalId": "a1",
            "kind": "command",
            "summary": "Run `touch made-by-agent.txt`",
            "jobId": started["jobId"],
        }
    ]
    assert "a1" in status["job"]["message"]
    assert any("lspAgent.approve" in m.message and "a1" in m.message for m in editor.log_messages)
    answer = await editor.command("lspAgent.approve", {"patchId": "a1"})
    assert answer == {"approvalId": "a1", "status": "approved"}
    editor.answers = ["Reject"]  # the dialog's late answer must not undo the approval
    editor.hold_dialogs.set()
    await job_end(editor, started["jobId"])
    ran = observation(script, "run_cmd")
    assert '"exit_code": 0' in ran and "APPROVAL_REJECTED" not in ran, ran
    assert (await editor.command("lspAgent.status"))["pendingApprovals"] == []


async def test_command_rejection_through_lspagent_reject(
    editor: EditorClient, workspace: Path
) -> None:
    script, started = await held_command_approval(editor, "touch nope.txt", "did not")
    answer = await editor.command("lspAgent.reject", {"patchId": "a1", "reason": "not now"})
    assert answer == {"approvalId": "a1", "status": "rejected"}
    editor.hold_dialogs.set()
    await job_end(editor, started["jobId"])
    refused = observation(script, "run_cmd")
    assert "rejected" in refused and "not now" in refused, refused


def no_preview(capabilities: types.ClientCapabilities) -> None:
    edit = capabilities.workspace.workspace_edit if capabilities.workspace else None
    if edit is not None:
        edit.change_annotation_support = None


async def test_patch_approval_by_patch_id(raw_editor: EditorClient, workspace: Path) -> None:
    """Without the editor's preview, lspAgent.approve also takes the patch id `p1`."""
    await start_editor(raw_editor, workspace, raw_editor.preset, tweak=no_preview)
    script = use_script(raw_editor, edit_patch("app.py", "return a - b", "return a + b"))
    raw_editor.hold_dialogs = asyncio.Event()
    started = await raw_editor.run(task="fix add")
    await wait_for(lambda: raw_editor.message_requests, "the approval dialog")
    assert (await raw_editor.command("lspAgent.approve", "p1")) == {
        "approvalId": "a1",
        "status": "approved",
    }
    await job_end(raw_editor, started["jobId"])
    raw_editor.hold_dialogs.set()
    assert (workspace / "app.py").read_text() == APP.replace("a - b", "a + b")
    assert observation(script, "apply_patch").startswith("applied: p1")
