"""One peer on one exercise: its request, its container run, the verdict, the record."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsp_agent.benchmarks.edits.exercises import Exercise
from lsp_agent.benchmarks.edits.judge import judge
from lsp_agent.benchmarks.edits.peers.environment import PeerSpec, ensure_environment
from lsp_agent.benchmarks.edits.peers.runner import peer_request, run_peer
from lsp_agent.benchmarks.edits.results import ExerciseRun, write_lines
from lsp_agent.benchmarks.edits.task import AIDER_TEST_FAILURES, agent_task, aider_instructions

if TYPE_CHECKING:
    from lsp_agent.benchmarks.edits.endpoint import Endpoint

AIDER_TRIES = 2
AIDER_TEST_TIMEOUT_S = 60.0  # aider's benchmark allows the tests a minute


def request_for(spec: PeerSpec, exercise: Exercise, model: str, max_steps: int) -> dict[str, Any]:
    if spec.name == "aider":
        return peer_request(
            "aider",
            model,
            instructions=aider_instructions(exercise),
            test_failures=AIDER_TEST_FAILURES,
            files=list(exercise.solution_files),
            tries=AIDER_TRIES,
            test_timeout_s=AIDER_TEST_TIMEOUT_S,
        )
    return peer_request(spec.name, model, task=agent_task(exercise), step_limit=max_steps)


def run_peer_on(
    spec: PeerSpec,
    exercise: Exercise,
    repo: Path,
    run_dir: Path,
    *,
    image: str,
    endpoint: Endpoint,
    max_steps: int,
    timeout_s: float,
) -> ExerciseRun:
    meter = endpoint.meter
    if meter is None or meter.socket_path is None:
        raise RuntimeError("a peer runs only against a metered endpoint")
    env = ensure_environment(spec, image, lambda message: None)  # made before the first run
    request = request_for(spec, exercise, endpoint.peer_model, max_steps)
    run = run_peer(
        image,
        env,
        request,
        repo=repo,
        out=run_dir / "out",
        socket_dir=meter.socket_path.parent,
        timeout_s=timeout_s,
    )
    usage = meter.take()
    (run_dir / "container.log").write_text(run.log, encoding="utf-8")
    write_lines(run_dir / "model.jsonl", usage.exchanges)
    verdict = judge(exercise, repo)
    result = run.result
    if "error" in result:
        status = "error: " + str(result["error"])[:300]
    elif spec.name == "aider":
        status = "tries: " + ", ".join("pass" if ok else "fail" for ok in result["tests_outcomes"])
    else:
        status = str(result.get("exit_status", ""))
    return ExerciseRun(
        exercise=exercise.name,
        agent=spec.name,
        passed=verdict.passed,
        reason=verdict.reason,
        # The container's whole run: what a user waits, and it includes aider's chat
        # summaries, which run in the background after its last try (their calls count too).
        seconds=round(run.seconds, 1),
        steps=int(result.get("tries", result.get("steps", 0))),
        model_calls=usage.calls,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        status="timed out" if run.timed_out else status,
        tests_run=verdict.tests_run,
        tests_failed=verdict.tests_failed,
        detail={**result, "test_output": verdict.output[-1500:]},
    )
