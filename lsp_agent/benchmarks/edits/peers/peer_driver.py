"""Runs one peer agent on one exercise, INSIDE the peer container (see `container.py`).

Started as `/peer-env/bin/python /peer-tools/peer_driver.py /out/request.json` by the bench:
standard library only at the top, no lsp_agent import (the container has neither). The
container has no network; the model is reached through a Unix socket the bench mounts, which
`forward_model_port` turns into the `127.0.0.1:PORT` the peer's OpenAI client expects.

- aider: its benchmark protocol (aider's benchmark/benchmark.py, `run_test_real`): the
  whole-file edit format, the instructions, up to two tries, the second with the first 50
  lines of the test output; the tests run in this container as the harness runs them.
- mini-swe-agent: its `mini` command with its default config (mini.yaml), non-interactive
  (`--yolo --exit-immediately`), the bench's step limit; its shell commands run here.

Writes `/out/result.json`; the peers' own transcripts go to /out as well.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

UNITTEST = ["python", "-m", "unittest", "discover", "-s", ".", "-t", ".", "-p", "*_test.py"]


def forward_model_port(socket_path: str, port: int) -> None:
    """Accept TCP connections on 127.0.0.1:`port` and pipe each to the Unix socket."""
    listener = socket.create_server(("127.0.0.1", port))

    def pump(source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, target):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)

    def accept() -> None:
        while True:
            client, _ = listener.accept()
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            upstream.connect(socket_path)
            for pair in ((client, upstream), (upstream, client)):
                threading.Thread(target=pump, args=pair, daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()


def clean_test_output(output: str, workspace: str) -> str:
    """aider's `cleanup_test_output`: no timings, short rules, no absolute paths."""
    output = re.sub(r"^Ran \d+ tests in \d+\.\d+s$", "", output, flags=re.MULTILINE)
    output = re.sub(r"^====*$", "====", output, flags=re.MULTILINE)
    output = re.sub(r"^----*$", "----", output, flags=re.MULTILINE)
    return output.replace(workspace, Path(workspace).name)


def run_unit_tests(workspace: str, timeout_s: float) -> str:
    """The test output when the tests fail, "" when they pass (aider's `run_unit_tests`)."""
    try:
        done = subprocess.run(
            UNITTEST,
            cwd=workspace,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=timeout_s,
        )
    except subprocess.TimeoutExpired:
        return "Tests timed out!"
    return "" if done.returncode == 0 else clean_test_output(done.stdout, workspace)


def failure_message(errors: str, template: str, file_list: str) -> str:
    """The second try's message: the first 50 lines of the test output, then aider's text."""
    return "\n".join(errors.splitlines()[:50]) + template.format(file_list=file_list)


def run_aider(request: dict[str, Any], out: Path) -> dict[str, Any]:
    from aider import models
    from aider.coders import Coder
    from aider.io import InputOutput

    workspace = request["workspace"]
    os.chdir(workspace)
    files = [str(Path(workspace) / name) for name in request["files"]]
    file_list = " ".join(request["files"])
    io = InputOutput(pretty=False, yes=True, chat_history_file=str(out / "aider.chat.history.md"))
    coder = Coder.create(
        models.Model(request["model"]),
        "whole",
        io,
        fnames=files,
        use_git=False,
        stream=False,
        verbose=False,
        cache_prompts=True,
        suggest_shell_commands=False,
    )
    coder.get_file_mentions = lambda *_args, **_kwargs: set()  # no other files join the chat
    message = request["instructions"]
    outcomes: list[bool] = []
    for _ in range(int(request["tries"])):
        coder.run(with_message=message, preproc=False)
        errors = run_unit_tests(workspace, float(request["test_timeout_s"]))
        outcomes.append(not errors)
        if not errors:
            break
        message = failure_message(errors, request["test_failures"], file_list)
    return {
        "tries": len(outcomes),
        "tests_outcomes": outcomes,
        "malformed_responses": coder.num_malformed_responses,
        "exhausted_context_windows": coder.num_exhausted_context_windows,
        "error_outputs": io.num_error_outputs,
    }


def run_mini(request: dict[str, Any], out: Path) -> dict[str, Any]:
    from minisweagent.config import builtin_config_dir
    from minisweagent.run.mini import app

    overrides = {
        "agent": {"step_limit": int(request["step_limit"])},
        "model": {"model_kwargs": {"api_base": request["api_base"], "api_key": "sk-none"}},
        "environment": {"cwd": request["workspace"]},
    }
    overrides_file = out / "mini-overrides.yaml"  # JSON is YAML (mini wants the suffix)
    overrides_file.write_text(json.dumps(overrides), encoding="utf-8")
    trajectory = out / "trajectory.json"
    os.chdir(request["workspace"])
    argv = ["--yolo", "--exit-immediately", "--model", request["model"], "--task"]
    argv += [request["task"], "--config", str(Path(builtin_config_dir) / "mini.yaml")]
    argv += ["--config", str(overrides_file), "--output", str(trajectory)]
    with contextlib.suppress(SystemExit):
        app(argv, standalone_mode=False)
    info: dict[str, Any] = {}
    if trajectory.is_file():
        info = json.loads(trajectory.read_text(encoding="utf-8")).get("info", {})
    stats = info.get("model_stats", {})
    return {"steps": int(stats.get("api_calls", 0)), "exit_status": info.get("exit_status", "")}


def main(request_path: str) -> int:
    request = json.loads(Path(request_path).read_text(encoding="utf-8"))
    out = Path(request_path).parent
    forward_model_port(request["socket"], int(request["port"]))
    os.environ.update(
        OPENAI_API_BASE=request["api_base"],
        OPENAI_API_KEY="sk-none",
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        MSWEA_CONFIGURED="true",
        MSWEA_COST_TRACKING="ignore_errors",
    )
    started = time.monotonic()
    runner = run_aider if request["peer"] == "aider" else run_mini
    try:
        result = runner(request, out)
    except Exception as exc:  # reported to the bench, which records the run as failed
        result = {"error": f"{type(exc).__name__}: {exc}"}
    result["seconds"] = round(time.monotonic() - started, 2)
    (out / "result.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
