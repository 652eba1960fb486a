"""`lsp-agent bench edits` on the real Docker engine: the scripted model through the CLI, the
judge's verdicts, and aider and mini-swe-agent (real packages, each in its own environment
and container) against a scripted OpenAI-compatible endpoint on 127.0.0.1.

The peers' environments are made on first use (aider-chat and mini-swe-agent from PyPI, about
a minute and a half the first time on this machine, seconds once uv's cache has them)."""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from lsp_agent.benchmarks.edits.exercises import load_exercises, write_repository
from lsp_agent.benchmarks.edits.judge import judge
from lsp_agent.benchmarks.edits.ours import scripted_turns
from lsp_agent.benchmarks.edits.peers.environment import PEERS, environment_dir
from lsp_agent.cli.main import main
from lsp_agent.testing import ScriptedOpenAIServer

pytestmark = pytest.mark.docker

LEAP = next(exercise for exercise in load_exercises() if exercise.name == "leap")
WRONG_LEAP = "def leap_year(year):\n    return year % 4 == 0\n"


@pytest.fixture
def bench_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, sandbox_image: str) -> Path:
    """A clean working directory and environment: no project .env, no Phoenix."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("PHOENIX_ENABLED", "false")
    monkeypatch.setenv("SANDBOX_BACKEND", "docker")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("MODEL_API_BASE", raising=False)
    return work


def test_the_scripted_model_passes_two_exercises_and_a_rerun_resumes(
    bench_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = bench_env / "edits.json"
    argv = ["bench", "edits", "--exercises", "leap,two-fer", "--output", str(output)]
    assert main(argv) == 0
    data = json.loads(output.read_text())
    ours = data["agents"]["lsp-agent"]
    assert (ours["passed"], ours["total"]) == (2, 2)
    assert ours["model_calls"] == 8 and ours["seconds"] > 0
    assert [run["exercise"] for run in data["exercises"]] == ["leap", "two-fer"]
    assert all(run["reason"] == "passed" and run["tests_run"] > 0 for run in data["exercises"])
    assert data["setup"]["model"] == "scripted"
    printed = capsys.readouterr()
    assert "| lsp-agent | 2/2 | 100.0% |" in printed.out
    assert (bench_env / "edits.json.runs" / "lsp-agent" / "leap" / "events.jsonl").is_file()

    assert main(argv) == 0
    assert "leap: lsp-agent already in the output, skipped" in capsys.readouterr().err
    assert json.loads(output.read_text())["exercises"] == data["exercises"]
    other = [*argv[:-2], "--max-steps", "9", "--output", str(output)]
    assert main(other) == 2, "runs of another step limit are not mixed in"


def test_the_judge_fails_wrong_code_a_changed_test_and_a_shadowed_unittest(
    tmp_path: Path, sandbox_image: str
) -> None:
    repo = write_repository(LEAP, tmp_path / "right")
    (repo / "leap.py").write_text(LEAP.example)
    verdict = judge(LEAP, repo)
    assert (verdict.passed, verdict.tests_failed) == (True, 0) and verdict.tests_run >= 9

    repo = write_repository(LEAP, tmp_path / "wrong")
    (repo / "leap.py").write_text(WRONG_LEAP)
    verdict = judge(LEAP, repo)
    assert (verdict.passed, verdict.reason) == (False, "tests failed")
    assert verdict.tests_failed > 0 and "FAIL" in verdict.output

    repo = write_repository(LEAP, tmp_path / "tests-changed")
    (repo / "leap.py").write_text(LEAP.example)
    (repo / "leap_test.py").write_text(LEAP.files["leap_test.py"] + "\n# tidied\n")
    assert judge(LEAP, repo).reason == "test file changed: leap_test.py"

    repo = write_repository(LEAP, tmp_path / "shadow")
    (repo / "leap.py").write_text(WRONG_LEAP)
    (repo / "unittest.py").write_text("raise SystemExit(0)\n")  # `python -m unittest` = this
    assert judge(LEAP, repo).reason == "tests failed"


def aider_reply(code: str) -> dict[str, str]:
    """aider's whole-file format: the file name, then the whole file in a fence."""
    return {"text": f"leap.py\n```python\n{code}```\n"}


def bash(command: str) -> dict[str, object]:
    return {"tool": "bash", "arguments": {"command": command}}


def test_aider_and_mini_swe_agent_run_in_containers_against_the_same_endpoint(
    bench_env: Path, monkeypatch: pytest.MonkeyPatch, sandbox_image: str
) -> None:
    canary = environment_dir(PEERS["mini-swe-agent"], sandbox_image) / "pwned"
    write_leap = f"cat > leap.py <<'EOF'\n{LEAP.example}EOF"
    escape = (
        'touch /peer-env/pwned; python3 -c "import urllib.request as u; '
        "u.urlopen('http://172.17.0.1:{port}/v1/models', timeout=3)\"; echo tried"
    )
    with ScriptedOpenAIServer() as server:
        server.set_turns(
            [
                *scripted_turns(LEAP),  # lsp-agent
                aider_reply(WRONG_LEAP),  # aider, try 1: the tests fail ...
                aider_reply(LEAP.example),  # ... try 2, after the test output
                bash(escape.format(port=server.port)),  # mini-swe-agent
                bash(write_leap),
                bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
            ]
        )
        monkeypatch.setenv("MODEL_API_BASE", server.openai_base)
        output = bench_env / "edits.json"
        argv = ["bench", "edits", "--model", "openai/scripted", "--exercises", "leap"]
        argv += ["--peers", "aider,mini-swe-agent", "--output", str(output)]
        assert main(argv) == 0
        requests = server.chat_requests
        assert server.remaining == 0
    data = json.loads(output.read_text())
    runs = {run["agent"]: run for run in data["exercises"]}
    assert {name: run["passed"] for name, run in runs.items()} == {
        "lsp-agent": True,
        "aider": True,
        "mini-swe-agent": True,
    }
    assert (runs["lsp-agent"]["model_calls"], runs["aider"]["model_calls"]) == (4, 2)
    assert runs["aider"]["status"] == "tries: fail, pass"
    assert runs["mini-swe-agent"]["model_calls"] == 3
    assert runs["mini-swe-agent"]["status"] == "Submitted"
    assert all(run["prompt_tokens"] > 0 for run in data["exercises"])
    second_try = json.dumps(requests[5]["messages"])
    assert "See the testing errors above." in second_try and "FAIL: test_" in second_try
    assert "Use the above instructions to modify the supplied files: leap.py" in json.dumps(
        requests[4]["messages"]
    )
    # The model-chosen command ran in the container: it could not write the peer's
    # environment nor reach the host's network (the server saw only the scripted calls).
    assert not canary.exists()
    assert len(requests) == 9
    run_dir = bench_env / "edits.json.runs" / "mini-swe-agent" / "leap"
    assert "Read-only file system" in (run_dir / "model.jsonl").read_text()


class _SilentModel(http.server.BaseHTTPRequestHandler):
    """An endpoint that lists a model and then never answers a chat request: it waits until
    the client leaves, as llama-server stops a reply nobody will read."""

    asked = threading.Event()
    left = threading.Event()

    def do_GET(self) -> None:
        body = b'{"object": "list", "data": [{"id": "silent", "object": "model"}]}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        type(self).asked.set()
        self.connection.settimeout(120)
        with contextlib.suppress(OSError):
            if self.connection.recv(1) == b"":
                type(self).left.set()

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_sigterm_stops_the_bench_drops_the_request_and_says_how_to_resume(
    bench_env: Path, sandbox_image: str
) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SilentModel)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    output = bench_env / "edits.json"
    env = {**os.environ, "MODEL_API_BASE": f"http://127.0.0.1:{server.server_port}/v1"}
    argv = [sys.executable, "-m", "lsp_agent", "bench", "edits", "--model", "openai/silent"]
    argv += ["--exercises", "leap", "--output", str(output)]
    bench = subprocess.Popen(argv, env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert _SilentModel.asked.wait(300), "lsp-agent never asked the model"
        bench.send_signal(signal.SIGTERM)
        _, err = bench.communicate(timeout=120)
    finally:
        bench.kill()
        server.shutdown()
    assert bench.returncode == 130, err
    assert f"interrupted; {output} keeps the finished runs: the same command resumes" in err
    assert _SilentModel.left.wait(30), "the model request was left generating"
    assert not output.exists() or json.loads(output.read_text())["exercises"] == []
