"""`lsp-agent demo`: the whole flow on a sample repository, told honestly.

It makes a small repository whose test fails because of a real defect, starts the real
language server over stdio with a headless editor (`editor`), asks for code actions
on the defective line, picks `Agent: ask…` and types the task (for a real coding model as
a user would: "The test in test_calc.py fails. Find and fix the bug in calc.py."; the tiny
default model is told the patch itself),
then lets the agent work (decoding greedily unless `MODEL_TEMPERATURE` says otherwise, so
that a machine gives the same run each time): constrained tool calls, the sandbox check,
the approval question (answered Apply), the workspace edit. It prints the steps as they come, the
diff, the check, and whether the tests pass afterwards — and says plainly when not.
"""

from __future__ import annotations

import asyncio
import difflib
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types

from lsp_agent.demo.editor import CAPABILITIES, DemoEditor
from lsp_agent.demo.headless_client import running_server
from lsp_agent.lsp.commands import CANCEL, RUN, STATUS
from lsp_agent.lsp.editor_client import shorten
from safety import host_process
from safety.host_env import user_environ

Show = Callable[[str], None]
DEFAULT_MODEL = "embedded"
ANSWER_CHARS = 200
JOB_TIMEOUT_S = 170.0
LARGE_MODEL_TIMEOUT_S = 900.0  # a 1B+ model on 2 busy cores: a few minutes per job
DEFECT_FILE = "calc.py"
DEFECT_LINE = 2  # 0-based: the `return` line
# SmolLM2-135M (and the other tiny embedded models) must be told the patch itself.
TINY_MODEL_TASK = (
    "calc.py has a bug: average() divides by (len(values) + 1). Call propose_patch with "
    'path "calc.py", old "(len(values) + 1)" and new "len(values)".'
)
# Any real coding model gets the task as a user would type it.
USER_TASK = "The test in test_calc.py fails. Find and fix the bug in calc.py."
# Greedy unless the user sets MODEL_TEMPERATURE: at the default 0.1, llama.cpp's random seed
# made SmolLM2-135M write a wrong `new` now and then (a CI run), and a demo should repeat.
DEMO_TEMPERATURE = "0"
TINY_MODELS = ("embedded", "embedded:smollm2-135m", "embedded:smollm2", "embedded:gemma3-270m")


def task_for(model: str) -> str:
    """What the demo types: the patch spelled out for a tiny model, else a user's words."""
    return TINY_MODEL_TASK if model in TINY_MODELS else USER_TASK


def job_timeout_s(model: str) -> float:
    return JOB_TIMEOUT_S if model in TINY_MODELS else LARGE_MODEL_TIMEOUT_S


SAMPLE_FILES = {
    "calc.py": (
        "def average(values):\n"
        '    """Return the mean of a non-empty list of numbers."""\n'
        "    return sum(values) / (len(values) + 1)\n"
    ),
    "test_calc.py": (
        "from calc import average\n\n\ndef test_average():\n    assert average([2, 4, 6]) == 4\n"
    ),
}


def make_sample_repository(root: Path) -> Path:
    """A tiny git repository whose one test fails because of an off-by-one defect."""
    root.mkdir(parents=True, exist_ok=True)
    for name, text in SAMPLE_FILES.items():
        (root / name).write_text(text, encoding="utf-8")
    git = ["git", "-c", "user.name=lsp-agent demo", "-c", "user.email=demo@lsp-agent.invalid"]
    try:
        for argv in (["git", "init", "-q"], [*git, "add", "."], [*git, "commit", "-qm", "sample"]):
            host_process.run(argv, cwd=root, check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        pass  # the tools work without git; only the git tools have less to say
    return root


def sample_tests_pass(root: Path) -> bool:
    result = host_process.run(  # our own sample, in the directory it was written to
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return result.returncode == 0


def say(line: str) -> None:
    print(line, flush=True)


def quiet(line: str) -> None:
    return None


@dataclass
class AgentStage:
    """What the agent stage did, as the editor saw it."""

    actions: list[str] = field(default_factory=list)
    job: dict[str, Any] = field(default_factory=dict)
    timed_out: bool = False
    questions: list[str] = field(default_factory=list)
    progress: list[str] = field(default_factory=list)
    server: str = ""
    start_s: float = 0.0


def server_environment(model: str) -> dict[str, str]:
    env = dict(user_environ())
    env["MODEL_ID"] = model
    env.setdefault("MODEL_TEMPERATURE", DEMO_TEMPERATURE)
    env.setdefault("PHOENIX_ENABLED", "false")  # opt in: PHOENIX_ENABLED=true lsp-agent demo
    env.setdefault("LOG_LEVEL", "WARNING")
    return env


async def run_agent_stage(repo: Path, model: str, show: Show) -> AgentStage:
    stage = AgentStage()
    editor = DemoEditor(show)
    started = time.monotonic()
    async with running_server(
        repo, env=server_environment(model), client=editor, capabilities=CAPABILITIES
    ) as (_client, result):
        stage.start_s = time.monotonic() - started
        info = result.server_info
        stage.server = f"{info.name} {info.version}" if info else "unnamed server"
        show(f"2. Language server started over stdio in {stage.start_s:.1f} s: {stage.server}")
        uri = editor.open(repo / DEFECT_FILE)
        cursor = types.Position(DEFECT_LINE, 4)
        actions = await editor.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=types.Range(cursor, cursor),
                context=types.CodeActionContext(
                    diagnostics=[], trigger_kind=types.CodeActionTriggerKind.Invoked
                ),
            )
        )
        found = [a for a in actions or [] if isinstance(a, types.CodeAction)]
        stage.actions = [a.title for a in found]
        show(f"3. Code actions on {DEFECT_FILE} line {DEFECT_LINE + 1}: {', '.join(stage.actions)}")
        ask = next((a for a in found if a.command and a.title.startswith("Agent: ask")), None)
        if ask is None or ask.command is None:
            show("   the server offered no `Agent: ask…` action; the demo cannot go on.")
            return stage
        offered = ask.command.arguments[0] if ask.command.arguments else None
        given = offered if isinstance(offered, dict) else {}
        argument = {key: value for key, value in given.items() if key != "ask"}
        task = task_for(model)
        argument["task"] = task
        show(f'   chose "{ask.title}" and typed the task:\n   {task}')
        show(f"4. The agent works (model: {model}):")
        started_job = await editor.workspace_execute_command_async(
            types.ExecuteCommandParams(command=RUN, arguments=[argument])
        )
        try:
            await asyncio.wait_for(editor.job_ended.wait(), job_timeout_s(model))
        except TimeoutError:
            stage.timed_out = True
            show(f"   no result after {job_timeout_s(model):.0f} s; cancelling the job")
            job_id = started_job.get("jobId") if isinstance(started_job, dict) else None
            await editor.workspace_execute_command_async(
                types.ExecuteCommandParams(command=CANCEL, arguments=[{"jobId": job_id}])
            )
            await asyncio.wait_for(editor.job_ended.wait(), 30.0)
        status = await editor.workspace_execute_command_async(
            types.ExecuteCommandParams(command=STATUS, arguments=[])
        )
        stage.job = dict(status.get("lastJob") or status.get("job") or {}) if status else {}
        stage.questions, stage.progress = editor.questions, editor.steps_seen
    return stage


def check_lines(progress: list[str]) -> list[str]:
    """The sandbox check as the steps reported it (`proposed p1 (applies: yes; …)`)."""
    return [line.split(" · ")[-1] for line in progress if "proposed p" in line]


def report(stage: AgentStage, before: str, after: str, outcome: DemoOutcome, show: Show) -> None:
    job = stage.job
    show(
        f"   ended: {job.get('status', 'unknown')} after {job.get('steps', 0)} steps in "
        f"{job.get('durationS', 0)} s; tools: {', '.join(job.get('toolsUsed', [])) or 'none'}"
    )
    show(f"   the model said: {shorten(str(job.get('answer') or '-'), ANSWER_CHARS)}")
    for fact in job.get("facts", []):  # what the job did, whatever the answer says
        show(f"   lsp-agent: {fact}")
    if job.get("error"):
        show(f"   error: {job['error']}")
    for line in job.get("patches", []):
        show(f"   patch {line}")
    show("5. Sandbox check: " + ("; ".join(check_lines(stage.progress)) or "no patch was checked"))
    diff = "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            f"a/{DEFECT_FILE}",
            f"b/{DEFECT_FILE}",
        )
    )
    show("6. Change written by the editor after approval:")
    show("   " + diff.rstrip().replace("\n", "\n   ") if diff else "   none")
    show(f"7. Tests pass after the agent: {outcome.fixed}")
    verdict = "FIXED: the test passes" if outcome.fixed else "NOT FIXED: the test still fails"
    show(f"Result: {verdict} ({outcome.duration_s:.1f} s in all).")


def sandbox_line() -> str:
    """Where the patch's check will run, said plainly (and how to fix a missing engine)."""
    from lsp_agent.settings import load_settings
    from sandbox import docker_problem
    from sandbox.docker import image_tag

    config = load_settings()[0].sandbox_config()
    if config.backend == "none":
        return "none (SANDBOX_BACKEND=none): the check only says whether the patch applies"
    if config.backend == "local":
        return "this machine (SANDBOX_BACKEND=local): each check command asks first"
    problem = docker_problem(config)
    if problem is None:
        return f"Docker, image {image_tag(config)}: the tests run there, before and after the patch"
    return (
        f"unavailable. {problem[0].upper()}{problem[1:]}. Until then the demo still runs; "
        "its check says `unavailable` (nothing runs on this machine)."
    )


@dataclass(frozen=True)
class DemoOutcome:
    fixed: bool
    status: str
    steps: int
    duration_s: float
    job_s: float


def demo_once(model: str | None = None, show: Show = say) -> DemoOutcome:
    """One whole demo; `show` receives every line of the account."""
    model = model or DEFAULT_MODEL
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="lsp-agent-demo-") as tmp:
        repo = make_sample_repository(Path(tmp) / "sample")
        before = (repo / DEFECT_FILE).read_text(encoding="utf-8")
        show(f"1. Sample repository with a defect: {repo}")
        show(f"   tests pass before the agent: {sample_tests_pass(repo)}")
        show(f"   sandbox: {sandbox_line()}")
        stage = asyncio.run(run_agent_stage(repo, model, show))
        after = (repo / DEFECT_FILE).read_text(encoding="utf-8")
        outcome = DemoOutcome(
            fixed=sample_tests_pass(repo),
            status=str(stage.job.get("status", "timed out" if stage.timed_out else "unknown")),
            steps=int(stage.job.get("steps", 0)),
            duration_s=time.monotonic() - started,
            job_s=float(stage.job.get("durationS", 0.0)),
        )
        report(stage, before, after, outcome, show)
    return outcome


def run_demo(model: str | None = None) -> int:
    """`lsp-agent demo`: exit 0 when the agent fixed the defect, 1 when it did not."""
    return 0 if demo_once(model).fixed else 1
