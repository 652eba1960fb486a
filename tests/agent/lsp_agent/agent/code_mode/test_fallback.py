"""AGENT_TYPE=code without Docker: the job says code mode is unavailable and runs the
tool-calling agent; model-written code never runs on this machine (not even with
SANDBOX_BACKEND=local, where commands may run on the host after approval)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.agent.lsp_agent.cli.test_run import FIX, lsp_agent_run


@pytest.mark.parametrize(
    ("env", "reason"),
    [
        ({"SANDBOX_BACKEND": "none"}, "SANDBOX_BACKEND=none"),
        ({"SANDBOX_BACKEND": "local"}, "SANDBOX_BACKEND=local"),
        (
            {"SANDBOX_BACKEND": "auto", "DOCKER_HOST": "unix:///nonexistent/docker.sock"},
            "Docker engine",
        ),
    ],
)
def test_code_mode_falls_back_to_tool_calling_and_says_so(
    tmp_repo: Path, tmp_path: Path, env: dict[str, str], reason: str
) -> None:
    marker = Path("/tmp") / f"lsp-agent-code-host-{uuid.uuid4().hex}"
    code = {"text": f"```python\nimport os\nos.system('touch {marker}')\n```"}
    out = lsp_agent_run(
        tmp_repo,
        [code, *FIX],
        "fix add",
        "--yes",
        tmp_path=tmp_path,
        env={"AGENT_TYPE": "code", **env},
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Code mode is unavailable" in out.stdout, out.stdout
    assert reason in out.stdout, out.stdout
    assert "this job uses tool calling instead" in out.stdout
    assert not marker.exists(), "model code ran on the host"
    assert "patch p1: pkg/calc.py [applied]" in out.stdout, out.stdout
    assert (tmp_repo / "pkg" / "calc.py").read_text().endswith("return b + a\n")


def test_bench_models_in_code_mode_refuses_without_docker(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the Docker sandbox every level would quietly run in tool-calling mode."""
    from lsp_agent.cli.main import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SANDBOX_BACKEND", "none")
    assert main(["bench", "models", "--agent-type", "code", "--levels", "L0"]) == 1
    err = capsys.readouterr().err
    assert "--agent-type code cannot run here" in err and "SANDBOX_BACKEND=none" in err, err
