"""Qwen2.5-Coder-1.5B in-process, in code mode, on the real Docker sandbox: told to implement
an Exercism stub, the model writes the function in its block (the task message shows the
stub), the block is proposed as a change to the stub's file, the model applies it, and the
exercise's tests pass when the bench's judge runs them."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_agent.agent.runtime import run_job
from lsp_agent.benchmarks.edits.exercises import select_exercises, write_repository
from lsp_agent.benchmarks.edits.judge import judge
from lsp_agent.benchmarks.edits.task import agent_task
from lsp_agent.settings import Settings
from tests.conftest import require_component
from tests.jobs import disk_job

pytestmark = pytest.mark.docker
MODEL_ID = "embedded:qwen2.5-coder-1.5b"


def test_the_model_implements_a_stub_in_code_mode(tmp_path: Path, sandbox_image: str) -> None:
    from lsp_agent.models.embedded.loader import describe_embedded
    from lsp_agent.models.errors import ModelConfigError

    try:
        describe_embedded(MODEL_ID)
    except ModelConfigError as exc:
        require_component("Qwen2.5-Coder-1.5B (the qwen extra)", False, str(exc))
    (exercise,) = select_exercises(names=["leap"])
    repo = write_repository(exercise, tmp_path / "leap")
    settings = Settings(
        model_id=MODEL_ID,
        model_temperature=0.0,
        agent_type="code",
        agent_max_steps=6,
        sandbox_backend="docker",
        phoenix_enabled=False,
    )
    result = run_job(disk_job(agent_task(exercise), repo, settings))
    assert "propose_file" in result.tools_used, result
    assert "apply_patch" in result.tools_used, result
    verdict = judge(exercise, repo)
    assert verdict.passed, (verdict, (repo / "leap.py").read_text())
