"""`$/progress` for jobs: create, begin, steps, end; cancel from the client; errors end the
job with a message and the server stays up."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.lsp.conftest import APP, job_end, use_script
from tests.lsp.editor import EditorClient, wait_for


def reports(client: EditorClient, token: str) -> list[Any]:
    return list(client.progress_reports.get(token, []))


async def progress_done(client: EditorClient, token: str) -> list[Any]:
    await wait_for(
        lambda: any(isinstance(r, types.WorkDoneProgressEnd) for r in reports(client, token)),
        "the progress to end",
    )
    return reports(client, token)


async def test_steps_are_reported_and_the_answer_shown(editor: EditorClient) -> None:
    use_script(
        editor,
        [
            {"tool": "read_file", "arguments": {"path": "app.py"}},
            {"tool": "rg_search", "arguments": {"pattern": "def"}},
            {"final_answer": "Two functions: greet and add.\nadd subtracts."},
        ],
    )
    started = await editor.run(task="what is in app.py?")
    token = started["progressToken"]
    end = await job_end(editor, started["jobId"])
    assert end.type == types.MessageType.Info
    assert "Two functions: greet and add. add subtracts." in end.message
    values = await progress_done(editor, token)
    begin, *middle, last = values
    assert isinstance(begin, types.WorkDoneProgressBegin)
    assert begin.title == "lsp-agent: what is in app.py?" and begin.cancellable is True
    assert all(isinstance(v, types.WorkDoneProgressReport) for v in middle)
    messages = [v.message for v in middle]
    assert "step 2/25 · read_file · running read_file" not in messages
    assert "step 1/25 · read_file · running read_file" in messages
    assert "step 2/25 · rg_search · running rg_search" in messages
    assert all(v.cancellable for v in middle)
    percentages = [v.percentage for v in middle if v.percentage is not None]
    assert percentages == sorted(percentages) and percentages[-1] < 100
    assert isinstance(last, types.WorkDoneProgressEnd) and last.message == "done"
    full = "\n".join(m.message for m in editor.log_messages)
    assert "Two functions: greet and add.\nadd subtracts." in full


async def test_client_cancel_interrupts_and_leaves_no_edit(
    editor: EditorClient, workspace: Path
) -> None:
    use_script(
        editor,
        [
            {
                "tool": "propose_patch",
                "arguments": {"path": "app.py", "old": "a - b", "new": "a + b"},
            },
            {"tool": "pause", "arguments": {"until": str(workspace.parent / "never")}},
            {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
            {"final_answer": "applied"},
        ],
    )
    started = await editor.run(task="fix add")
    token = started["progressToken"]
    await wait_for(
        lambda: any("pause" in (getattr(r, "message", "") or "") for r in reports(editor, token)),
        "the pause step",
    )
    editor.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    end = await job_end(editor, started["jobId"])
    assert "cancelled" in end.message
    values = await progress_done(editor, token)
    assert values[-1].message == "cancelled"
    assert editor.edits == []
    assert (workspace / "app.py").read_bytes() == APP.encode()
    status = await editor.command("lspAgent.status")
    assert status["lastJob"]["status"] == "cancelled" and status["job"] is None


async def test_cancel_while_waiting_for_approval(editor: EditorClient, workspace: Path) -> None:
    editor.hold_dialogs = asyncio.Event()
    editor.apply_mode = "decline"
    use_script(
        editor,
        [
            {"tool": "run_cmd", "arguments": {"command": "touch x.txt"}},
            {"final_answer": "done"},
        ],
    )
    started = await editor.run(task="touch")
    await wait_for(lambda: editor.message_requests, "the approval question")
    await editor.command("lspAgent.cancel", {"jobId": started["jobId"]})
    end = await job_end(editor, started["jobId"])
    assert "cancelled" in end.message
    assert (await editor.command("lspAgent.status"))["pendingApprovals"] == []
    editor.hold_dialogs.set()
    assert (workspace / "app.py").read_bytes() == APP.encode()


async def test_model_error_ends_the_job_with_an_error_message(editor: EditorClient) -> None:
    use_script(editor, [{"error": "the model endpoint said 500", "status": 500}])
    started = await editor.run(task="anything")
    end = await job_end(editor, started["jobId"])
    assert end.type == types.MessageType.Error
    assert "failed" in end.message and "the model endpoint said 500" in end.message
    values = await progress_done(editor, started["progressToken"])
    assert values[-1].message == "failed"
    assert any(
        m.type == types.MessageType.Error and "500" in m.message for m in editor.log_messages
    )


async def test_a_crashing_job_does_not_take_the_server_down(editor: EditorClient) -> None:
    use_script(editor, [{"tool": "crash"}])
    started = await editor.run(task="crash please")
    end = await job_end(editor, started["jobId"])
    assert end.type == types.MessageType.Error
    assert "internal error: RuntimeError: scripted runtime crash" in end.message
    use_script(editor, [{"final_answer": "still here"}])
    again = await editor.run(task="are you there?")
    assert "still here" in (await job_end(editor, again["jobId"])).message


async def test_missing_script_is_reported_not_crashed(editor: EditorClient) -> None:
    editor.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"modelId": "scripted:/no/such/script.json"})
    )
    started = await editor.run(task="x")
    end = await job_end(editor, started["jobId"])
    assert end.type == types.MessageType.Error and "/no/such/script.json" in end.message
