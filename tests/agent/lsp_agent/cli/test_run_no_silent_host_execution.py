"""No silent host execution, as an attack through the real `lsp-agent run` (issue 15 item 2).

The repository's `conftest.py` writes a marker file on the host the moment pytest loads
it. The model proposes a patch, asks for the tests and a command. With no usable Docker
sandbox (`auto` and an image that does not exist), nothing runs on the host; with
`SANDBOX_BACKEND=local` chosen but every approval rejected (no terminal, no --yes),
nothing runs either (the wording of the question: tests/unit/sandbox/test_local_backend.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PLAN = [
    {
        "tool": "propose_patch",
        "arguments": {"path": "pkg/calc.py", "old": "return a + b", "new": "return b + a"},
    },
    {"tool": "run_tests", "arguments": {}},
    {"tool": "run_cmd", "arguments": {"command": "python -m pytest -q"}},
    {"final_answer": "done"},
]


def hostile_repo(repo: Path, marker: Path) -> Path:
    (repo / "conftest.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran on the host')\n"
    )
    return repo


def run(repo: Path, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(PLAN))
    full_env = {
        **os.environ,
        "MODEL_ID": f"scripted:{script}",
        "PHOENIX_ENABLED": "false",
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "lsp_agent", "run", "fix add", "--repo", str(repo)],
        capture_output=True,
        text=True,
        timeout=180,
        env=full_env,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize(
    "env",
    [
        {"SANDBOX_BACKEND": "auto", "SANDBOX_IMAGE": "lsp-agent-sandbox:000000000000"},
        {"SANDBOX_BACKEND": "auto", "DOCKER_HOST": "unix:///nonexistent/docker.sock"},
    ],
    ids=["auto, no image", "auto, no engine"],
)
def test_auto_without_a_sandbox_runs_nothing_on_the_host(tmp_repo, tmp_path, env):
    marker = tmp_path / "pwned"
    out = run(hostile_repo(tmp_repo, marker), tmp_path, **env)
    text = out.stdout + out.stderr
    assert not marker.exists(), text
    assert "check: unavailable" in text
    assert "lsp-agent sandbox build" in text


def test_local_asks_for_every_host_command_and_a_no_runs_nothing(tmp_repo, tmp_path):
    marker = tmp_path / "pwned"
    out = run(hostile_repo(tmp_repo, marker), tmp_path, SANDBOX_BACKEND="local")
    text = out.stdout + out.stderr
    assert not marker.exists(), text
    assert "not run on this machine: it was not approved" in text
    # The check, run_tests and run_cmd: refused by the sandbox or already by the policy.
    assert text.count("not run on this machine") + text.count("was not approved") >= 3
