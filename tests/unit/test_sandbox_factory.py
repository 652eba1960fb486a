"""open_sandbox: backend choice from settings, loud fallbacks, never an exception for the agent."""

from __future__ import annotations

import logging

import pytest

from lsp_agent.settings import Settings
from sandbox import PatchCheck, RunResult, Sandbox, factory, open_sandbox
from sandbox.docker_backend import DockerSandbox
from sandbox.fake_engine import FakeEngine
from sandbox.local_backend import LocalSandbox
from sandbox.null_backend import NullSandbox
from tests.repo_samples import CALC_DIFF as DIFF


@pytest.fixture(autouse=True)
def _fresh_reports(monkeypatch):
    monkeypatch.setattr(factory, "_reported", set())


def test_none_backend_checks_applies_only(tmp_repo):
    with open_sandbox(tmp_repo, Settings(sandbox_backend="none")) as box:
        assert isinstance(box, NullSandbox)
        check = box.check_patch(DIFF)
        stale = box.check_patch(DIFF.replace("a + b", "a * b"))
        run = box.run(["true"])
    assert (check.applies, check.check_passed, check.check_status) == (True, None, "unavailable")
    assert "check: unavailable" in check.output
    assert (stale.applies, stale.check_status) == (False, "not run")
    assert (run.exit_code, run.available) == (-1, False)


def test_none_backend_uses_the_overlay(tmp_repo):
    with open_sandbox(tmp_repo, Settings(sandbox_backend="none")) as box:
        check = box.check_patch(DIFF, overlay={"pkg/calc.py": "def add(x, y):\n    return 0\n"})
    assert check.applies is False


def test_local_backend(tmp_repo):
    with open_sandbox(tmp_repo, Settings(sandbox_backend="local")) as box:
        assert isinstance(box, LocalSandbox)


def test_docker_backend_with_engine_and_image(tmp_repo):
    engine = FakeEngine()
    with open_sandbox(tmp_repo, Settings(sandbox_backend="docker"), engine=engine) as box:
        assert isinstance(box, DockerSandbox)
        assert box.image.startswith("lsp-agent-sandbox:")


def test_sandbox_image_setting_wins(tmp_repo):
    settings = Settings(sandbox_backend="docker", sandbox_image="mine:1")
    with open_sandbox(tmp_repo, settings, engine=FakeEngine()) as box:
        assert isinstance(box, DockerSandbox)
        assert box.image == "mine:1"


@pytest.mark.parametrize(
    ("engine", "words"),
    [
        (FakeEngine(image_present=False), "does not exist"),
        (FakeEngine(start_error="cannot reach the Docker engine (no socket)"), "Docker engine"),
    ],
)
def test_docker_requested_but_unavailable_means_check_unavailable(tmp_repo, caplog, engine, words):
    settings = Settings(sandbox_backend="docker")
    with caplog.at_level(logging.ERROR):
        box = open_sandbox(tmp_repo, settings, engine=engine)
        open_sandbox(tmp_repo, settings, engine=engine).close()
    assert isinstance(box, NullSandbox)
    check = box.check_patch(DIFF)
    assert (check.applies, check.check_status, check.available) == (True, "unavailable", False)
    assert "lsp-agent sandbox build" in check.output
    assert words in check.output
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1  # one actionable message, not one per session
    assert "lsp-agent sandbox build" in errors[0].getMessage()


def test_auto_falls_back_to_local_loudly(tmp_repo, caplog):
    with caplog.at_level(logging.WARNING):
        box = open_sandbox(tmp_repo, Settings(), engine=FakeEngine(image_present=False))
    assert isinstance(box, LocalSandbox)
    box.close()
    text = " ".join(r.getMessage() for r in caplog.records)
    assert "lsp-agent sandbox build" in text
    assert "WITHOUT ISOLATION" in text


def test_auto_prefers_docker(tmp_repo):
    with open_sandbox(tmp_repo, Settings(), engine=FakeEngine()) as box:
        assert isinstance(box, DockerSandbox)


def test_settings_default_to_the_users_scope_never_the_repositorys_dotenv(
    tmp_repo, tmp_path, monkeypatch
):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("SANDBOX_BACKEND", "none")
    with open_sandbox(tmp_repo) as box:
        assert isinstance(box, NullSandbox)
    monkeypatch.delenv("SANDBOX_BACKEND")
    (tmp_path / "config" / "lsp-agent").mkdir(parents=True)
    (tmp_path / "config" / "lsp-agent" / "config.env").write_text("SANDBOX_BACKEND=none\n")
    (tmp_repo / ".env").write_text("SANDBOX_BACKEND=local\n")
    with open_sandbox(str(tmp_repo)) as box:
        assert isinstance(box, NullSandbox)
        assert not isinstance(box, LocalSandbox)


def test_every_backend_satisfies_the_protocol(tmp_repo):
    for backend in ("none", "local"):
        with open_sandbox(tmp_repo, Settings(sandbox_backend=backend)) as box:
            assert isinstance(box, Sandbox)
            assert isinstance(box.run(["true"]), RunResult)
            assert isinstance(box.check_patch(DIFF, []), PatchCheck)
    with open_sandbox(tmp_repo, Settings(), engine=FakeEngine()) as box:
        assert isinstance(box, Sandbox)


def test_missing_repository_is_a_bug(tmp_path):
    with pytest.raises(NotADirectoryError):
        open_sandbox(tmp_path / "nope", Settings(sandbox_backend="none"))
