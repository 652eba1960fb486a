"""`lsp-agent bench edits`: the exercises × the agents, judged, written after every run.

For each exercise in turn, each agent (lsp-agent, then the peers in the order given) gets a
fresh git repository of the stub and the tests, runs once, and is judged by the exercise's
tests in the Docker sandbox. Runs are written to `--output` as they finish (with their
transcripts beside it, in `FILE.runs/`), and a bench started again with the same output
skips the runs already there. Progress goes to stderr.
"""

from __future__ import annotations

import dataclasses
import shlex
import shutil
import signal
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from lsp_agent.agent.job_types import ProgressEvent
from lsp_agent.benchmarks.edits.endpoint import Endpoint, open_endpoint
from lsp_agent.benchmarks.edits.exercises import (
    Exercise,
    select_exercises,
    source_commit,
    write_repository,
)
from lsp_agent.benchmarks.edits.judge import judge, judge_config
from lsp_agent.benchmarks.edits.ours import SCRIPTED, model_problem, run_ours
from lsp_agent.benchmarks.edits.peers import (
    PEERS,
    PeerEnvironmentError,
    ensure_environment,
    run_peer_on,
)
from lsp_agent.benchmarks.edits.report import write_chart
from lsp_agent.benchmarks.edits.results import (
    OURS,
    ExerciseRun,
    ResumeError,
    common_exercises,
    load_runs,
    summary,
    write_lines,
    write_runs,
)
from lsp_agent.benchmarks.edits.task import agent_task
from lsp_agent.benchmarks.runner import BenchError, BenchOptions, Figures
from lsp_agent.settings import load_settings
from sandbox import docker_problem, image_tag

DEFAULT_TIMEOUT_S = 1800.0


def say(message: str) -> None:
    print(f"[edits] {message}", file=sys.stderr, flush=True)


def command_line(options: BenchOptions, model_id: str, names: list[str]) -> str:
    words = ["lsp-agent", "bench", "edits", "--model", model_id]
    if options.exercises:
        words += ["--exercises", ",".join(names)]
    else:
        words += ["--sample", str(len(names))]
    if options.peers:
        words += ["--peers", ",".join(options.peers)]
    if options.peers_only:
        words.append("--peers-only")
    if options.agent_type != "tool_calling":
        words += ["--agent-type", options.agent_type]
    if options.max_steps:
        words += ["--max-steps", str(options.max_steps)]
    if options.timeout_s:
        words += ["--timeout", f"{options.timeout_s:g}"]
    if options.output:
        words += ["--output", str(options.output)]
    return shlex.join(words)


def _agents(options: BenchOptions) -> list[str]:
    unknown = [name for name in options.peers if name not in PEERS]
    if unknown:
        raise BenchError(f"unknown peer {unknown[0]!r}; choose from: {', '.join(PEERS)}", 2)
    if options.peers_only and not options.peers:
        raise BenchError("--peers-only needs --peers", 2)
    return ([] if options.peers_only else [OURS]) + list(dict.fromkeys(options.peers))


def measure(runs: int, options: BenchOptions) -> Figures:
    """Run the bench. Ctrl-C or SIGTERM stops it: the run under way is dropped, its container
    and the model server are stopped, and the output keeps every finished run."""
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        return _measure(options)
    except KeyboardInterrupt:
        kept = f"; {options.output} keeps the finished runs: the same command resumes" * bool(
            options.output
        )
        raise BenchError(f"interrupted{kept}", 130) from None
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _plan(options: BenchOptions) -> tuple[list[Exercise], list[str], str]:
    """The exercises, the agents and the model asked for (BenchError when they cannot be)."""
    try:
        exercises = select_exercises(options.sample, options.exercises)
    except ValueError as exc:
        raise BenchError(str(exc), 2) from None
    if len(options.models) > 1:
        raise BenchError("bench edits runs one model (the same for every agent)", 2)
    model_id = options.models[0] if options.models else SCRIPTED
    if model_id == SCRIPTED and options.agent_type != "tool_calling":
        raise BenchError("the scripted model plays tool calls: --agent-type code needs a model", 2)
    return exercises, _agents(options), model_id


def _measure(options: BenchOptions) -> Figures:
    exercises, agents, model_id = _plan(options)
    config = judge_config()
    problem = docker_problem(config)
    if problem:
        raise BenchError(f"the exercises are judged in the Docker sandbox: {problem}")
    settings, _ = load_settings(workspace=Path.cwd())
    image = image_tag(config)
    with ExitStack() as stack:
        work = _work_dir(stack, options.output)
        endpoint = open_endpoint(
            stack,
            model_id,
            settings.model_api_base,
            with_peers=any(agent != OURS for agent in agents),
            max_steps=options.max_steps,
            llama_server=options.llama_server,
            log_dir=work,
        )
        ours = dataclasses.replace(endpoint.ours, agent_type=options.agent_type)
        endpoint = dataclasses.replace(endpoint, ours=ours)
        _ready(agents, endpoint, image)
        max_steps = options.max_steps or settings.agent_max_steps
        setup = {"model": model_id, "max_steps": max_steps, "agent_type": options.agent_type}
        try:
            done = load_runs(options.output, setup) if options.output else []
        except ResumeError as exc:
            raise BenchError(str(exc), 2) from None
        bench = _Bench(
            options=options,
            endpoint=endpoint,
            agents=agents,
            work=work,
            max_steps=max_steps,
            image=image,
            done=done,
        )
        bench.setup = {
            **setup,
            "lsp_agent_model": endpoint.ours.model_id,
            "peers_model": endpoint.peer_model,
            "exercises": [exercise.name for exercise in exercises],
            "exercism_commit": source_commit(),
            "peers": {name: PEERS[name].requirement for name in options.peers},
            "timeout_s": options.timeout_s or DEFAULT_TIMEOUT_S,
            "command": command_line(options, model_id, [e.name for e in exercises]),
        }
        for index, exercise in enumerate(exercises, start=1):
            for agent in agents:
                bench.run(exercise, agent, f"{index}/{len(exercises)}")
        figures = bench.figures()
    if options.chart is not None:
        say(f"chart: {write_chart(figures, options.chart)}")
    return figures


def _ready(agents: list[str], endpoint: Endpoint, image: str) -> None:
    """Before the first exercise: the model answers, the peers' environments exist."""
    if OURS in agents and endpoint.ours.model_id != SCRIPTED:
        problem = model_problem(endpoint.ours)
        if problem:
            raise BenchError(f"model {endpoint.ours.model_id}: {problem}")
    for agent in agents:
        if agent != OURS:
            try:
                ensure_environment(PEERS[agent], image, say)
            except PeerEnvironmentError as exc:
                raise BenchError(str(exc)) from None


def _work_dir(stack: ExitStack, output: Path | None) -> Path:
    if output is None:
        return Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-edits-")))
    work = output.with_name(output.name + ".runs")
    work.mkdir(parents=True, exist_ok=True)
    return work


class _Bench:
    def __init__(
        self,
        *,
        options: BenchOptions,
        endpoint: Endpoint,
        agents: list[str],
        work: Path,
        max_steps: int,
        image: str,
        done: list[ExerciseRun],
    ) -> None:
        self.options = options
        self.endpoint = endpoint
        self.agents = agents
        self.work = work
        self.max_steps = max_steps
        self.image = image
        self.runs = done
        self.setup: dict[str, Any] = {}
        self.timeout_s = options.timeout_s or DEFAULT_TIMEOUT_S

    def run(self, exercise: Exercise, agent: str, position: str) -> None:
        if any(r.agent == agent and r.exercise == exercise.name for r in self.runs):
            say(f"{position} {exercise.name}: {agent} already in the output, skipped")
            return
        run_dir = self.work / agent / exercise.name
        shutil.rmtree(run_dir, ignore_errors=True)
        repo = write_repository(exercise, run_dir / "repo")
        say(f"{position} {exercise.name}: {agent} …")
        if self.endpoint.meter is not None:
            self.endpoint.meter.take()  # nothing before this run counts for it
        try:
            record = self._run(exercise, agent, repo, run_dir)
        finally:  # a run that timed out or was stopped leaves no reply generating
            if self.endpoint.meter is not None:
                self.endpoint.meter.abort()
        self.runs.append(record)
        verdict = "passed" if record.passed else f"FAILED ({record.reason}; {record.status})"
        say(
            f"{position} {exercise.name}: {agent} {verdict}, {record.steps} steps, "
            f"{record.model_calls} calls, {record.seconds:.0f} s"
        )
        if self.options.output is not None:
            write_runs(self.options.output, self.runs, self.agents, self.setup)

    def _run(self, exercise: Exercise, agent: str, repo: Path, run_dir: Path) -> ExerciseRun:
        if agent == OURS:
            return self._ours(exercise, repo, run_dir)
        return run_peer_on(
            PEERS[agent],
            exercise,
            repo,
            run_dir,
            image=self.image,
            endpoint=self.endpoint,
            max_steps=self.max_steps,
            timeout_s=self.timeout_s,
        )

    def _ours(self, exercise: Exercise, repo: Path, run_dir: Path) -> ExerciseRun:
        meter = self.endpoint.meter if self.endpoint.ours_metered else None
        run = run_ours(
            exercise,
            repo,
            agent_task(exercise),
            self.endpoint.ours,
            timeout_s=self.timeout_s,
            on_progress=_show_step,
            on_timeout=meter.abort if meter is not None else lambda: None,
        )
        usage = meter.take() if meter is not None else None
        verdict = judge(exercise, repo)
        result = run.result
        write_lines(run_dir / "events.jsonl", run.events)
        if usage is not None:
            write_lines(run_dir / "model.jsonl", usage.exchanges)
        return ExerciseRun(
            exercise=exercise.name,
            agent=OURS,
            passed=verdict.passed,
            reason=verdict.reason,
            seconds=round(result.duration_s, 1),
            steps=result.steps,
            model_calls=usage.calls if usage else result.model_calls,
            prompt_tokens=usage.prompt_tokens if usage else result.prompt_tokens,
            completion_tokens=usage.completion_tokens if usage else result.completion_tokens,
            status=result.status,
            tests_run=verdict.tests_run,
            tests_failed=verdict.tests_failed,
            detail={
                "error": result.error[:1000],
                "patches": result.patches,
                "tools": result.tools_used,
                # replies decoded again because they only repeated what the job tried
                "decoded_again": sum(1 for s in result.model_stats if "temperature" in s),
                "test_output": verdict.output[-1500:],
            },
        )

    def figures(self) -> Figures:
        names = self.setup["exercises"]
        runs = [run for run in self.runs if run.exercise in names]
        common = common_exercises(runs, self.agents)
        return {
            "agents": summary(runs, self.agents),
            "exercises": [run.to_json() for run in runs],
            "setup": self.setup,
            "command": self.setup["command"],
            "common_exercises": common,
        }


def _show_step(event: ProgressEvent) -> None:
    if event.kind == "step":
        say(f"    step {event.step}/{event.max_steps} {event.tool or '(no tool)'}")
