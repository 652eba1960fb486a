"""Code-mode jobs in this process (`run_job`) on the real Docker engine: cancel stops
the code and removes its container, a loop of identical calls inside one step is stopped by
the loop detector, a placeholder final answer is refused, and the context budget masks old
code steps as it masks old tool results."""

from __future__ import annotations

import dataclasses
import os
import socket
import threading
import time
from pathlib import Path

import docker
import pytest

from lsp_agent.agent.job_types import JobResult, ProgressEvent
from lsp_agent.agent.runtime import run_job
from lsp_agent.models.messages import message_text
from lsp_agent.models.scripted import ScriptedModel
from lsp_agent.settings import Settings
from sandbox.docker.hardening import LABEL
from tests.e2e.code_mode import CODE_SETTINGS, FINAL, code_turn
from tests.jobs import disk_job

pytestmark = pytest.mark.docker

SETTINGS = dataclasses.replace(CODE_SETTINGS, agent_max_steps=8)


def run(
    repo: Path,
    model: ScriptedModel,
    *,
    settings: Settings = SETTINGS,
    cancel: threading.Event | None = None,
    events: list[ProgressEvent] | None = None,
) -> JobResult:
    return run_job(
        disk_job(
            "do the task",
            repo,
            settings,
            progress=events.append if events is not None else lambda event: None,
            cancel=cancel or threading.Event(),
            model=model,
        )
    )


def our_containers(wait_s: float = 10.0) -> list[object]:
    """This process's sandbox containers, after waiting up to `wait_s` for them to go
    (a removal Docker already runs for `auto_remove` can take a moment)."""
    client = docker.from_env()
    owner = f"{LABEL}.owner={socket.gethostname()}:{os.getpid()}"
    deadline = time.monotonic() + wait_s
    try:
        while True:
            found = list(client.containers.list(all=True, filters={"label": owner}))
            if not found or time.monotonic() > deadline:
                return found
            time.sleep(0.2)
    finally:
        client.close()


def test_cancel_stops_the_code_and_removes_its_container(tmp_repo, sandbox_image):
    cancel = threading.Event()
    events: list[ProgressEvent] = []
    model = ScriptedModel([code_turn("while True:\n    pass"), FINAL])
    timer = threading.Timer(2.0, cancel.set)
    started = time.monotonic()
    timer.start()
    try:
        result = run(tmp_repo, model, cancel=cancel, events=events)
    finally:
        timer.cancel()
    assert result.status == "cancelled", result
    assert time.monotonic() - started < 15  # not the step's 30 s deadline
    assert our_containers() == []
    assert any("cancelled" in e.message for e in events if e.kind == "step"), events


def test_a_loop_inside_one_step_is_stopped(tmp_repo, sandbox_image):
    loop = code_turn("for i in range(30):\n    read_file(path='pkg/calc.py')")
    result = run(tmp_repo, ScriptedModel([loop, FINAL]))
    assert result.status == "stopped", result
    assert "Stopping the run" in result.error, result
    assert result.tools_used.count("read_file") < 10, result.tools_used
    assert our_containers() == []


def test_a_placeholder_final_answer_is_refused_and_the_run_goes_on(tmp_repo, sandbox_image):
    model = ScriptedModel([code_turn('final_answer("p1")'), FINAL])
    result = run(tmp_repo, model)
    assert result.status == "answered" and "The run went on" in result.answer, result
    assert "only a patch id" in model.calls[1].text(), model.calls[1].text()[-800:]


def test_the_context_budget_masks_old_code_steps(tmp_repo, sandbox_image):
    chunk = "print('" + "x" * 2000 + "')"
    turns = [code_turn(f"print('step {i}')\n{chunk}") for i in range(4)] + [FINAL]
    model = ScriptedModel(turns)
    settings = dataclasses.replace(SETTINGS, model_num_ctx=2048)
    result = run(tmp_repo, model, settings=settings)
    assert result.status == "answered", result
    last = model.calls[-1]
    texts = [message_text(m.content) for m in last.messages]
    assert any("[code hidden to save context" in t for t in texts), texts
    assert any("(result shortened to save context" in t for t in texts), texts
    assert "step 0" not in "\n".join(texts)  # the oldest step's code and output are gone
    assert sum(len(t) for t in texts) / 2.2 < 2048 * 0.75


def test_a_failed_model_call_is_an_observation_in_code_terms(tmp_repo, sandbox_image):
    model = ScriptedModel([{"error": "upstream overloaded", "status": 503}, FINAL])
    result = run(tmp_repo, model)
    assert result.status == "answered", result
    told = model.calls[1].text()
    assert "Your last reply could not be used" in told and "```python block" in told, told
    assert "Error in code parsing" not in told, told


HOST_THAT_DIES = """
import os, sys, time
import docker
from sandbox.code.container import start_code_container
channel = start_code_container(docker.from_env(), sys.argv[1])
channel.send({"tools": []})
channel.send({"run": "while True:\\n    pass", "step": 1})
print(channel.container_id, flush=True)
time.sleep(1)
os._exit(9)  # killed mid-step: no cleanup runs
"""


def test_a_host_that_dies_mid_step_leaves_no_container(sandbox_image):
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", HOST_THAT_DIES, sandbox_image],
        capture_output=True,
        text=True,
        timeout=120,
    )
    container_id = out.stdout.strip()
    assert out.returncode == 9 and container_id, out.stderr
    client = docker.from_env()
    try:
        deadline = time.monotonic() + 15
        while client.containers.list(all=True, filters={"id": container_id}):
            assert time.monotonic() < deadline, "the endless step outlived its host"
            time.sleep(0.2)
    finally:
        client.close()


def test_a_block_that_writes_the_task_s_function_is_proposed_then_applied(tmp_repo, sandbox_image):
    """The block's `def add` (after a thought line, as models write it) is proposed as a
    change to pkg/calc.py through propose_file; nothing is written until apply_patch."""
    write = code_turn("def add(a, b):\n    return b + a\n\nprint(add(1, 2))", "I will write add().")
    apply = code_turn('print(apply_patch(patch_id="p1"))')
    model = ScriptedModel([write, apply, FINAL])
    task = "Write add() in pkg/calc.py again."
    result = run_job(disk_job(task, tmp_repo, SETTINGS, model=model))
    assert result.status == "answered", result
    told = model.calls[1].text()
    assert "3" in told and "Your code writes add of pkg/calc.py anew" in told, told[-1500:]
    assert 'apply_patch(patch_id=\\"p1\\")' in told, told[-1500:]
    assert "applied: p1 (pkg/calc.py)" in model.calls[2].text()
    assert (tmp_repo / "pkg" / "calc.py").read_text().endswith("return b + a\n")
    assert result.tools_used[:2] == ["propose_file", "apply_patch"], result.tools_used


def test_indented_lines_and_a_thought_only_block_on_the_real_container(tmp_path, sandbox_image):
    """say (Exercism): the rest of say()'s body sent without its `def` line is proposed as
    say() whole, though run alone it is a SyntaxError in the container; a block holding only
    `thought: …` is told so instead of "invalid syntax"; nothing is written until apply."""
    from lsp_agent.agent.code_mode.executor import ONLY_A_THOUGHT

    repo = tmp_path / "repo"
    repo.mkdir()
    stub = 'def say(number):\n    if number < 0:\n        raise ValueError("no")\n'
    (repo / "say.py").write_text(stub, encoding="utf-8")
    (repo / "say_test.py").write_text(
        "import unittest\nfrom say import say\n\n\nclass SayTest(unittest.TestCase):\n"
        "    def test_one(self):\n        self.assertEqual(say(1), 'one')\n",
        encoding="utf-8",
    )
    rest = {
        "text": "Thought: the rest.\n```python\n    if number == 1:\n        return 'one'\n"
        "    return 'many'\n```"
    }
    thought = {"text": "Thought: now apply.\n```python\nthought: I need to apply the patch.\n```"}
    apply = code_turn('print(apply_patch(patch_id="p1"))')
    model = ScriptedModel([rest, thought, apply, FINAL])
    result = run_job(disk_job("Implement say() in say.py.", repo, SETTINGS, model=model))
    assert result.status == "answered", result
    told = model.calls[1].text()
    assert "Your indented lines read as the rest of say of say.py" in told, told[-1500:]
    assert "SyntaxError" in told  # the block's own run, told beside the proposal
    assert ONLY_A_THOUGHT in model.calls[2].text(), model.calls[2].text()[-1500:]
    assert (repo / "say.py").read_text(encoding="utf-8") == stub + (
        "    if number == 1:\n        return 'one'\n    return 'many'\n"
    )
    assert result.tools_used[:2] == ["propose_file", "apply_patch"], result.tools_used
