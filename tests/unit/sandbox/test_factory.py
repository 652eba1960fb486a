"""open_sandbox: backend choice from its config, loud fallbacks, never an exception."""

from __future__ import annotations

import logging

import pytest

from sandbox import PatchCheck, RunResult, Sandbox, factory, open_sandbox
from sandbox.config import SandboxConfig
from sandbox.docker_backend import DockerSandbox
from sandbox.local_backend import LocalSandbox
from sandbox.null_backend import NullSandbox
from tests.fake_engine import FakeEngine
from tests.repo_samples import CALC_DIFF as DIFF


@pytest.fixture(autouse=True)
def _fresh_reports(monkeypatch):
    monkeypatch.setattr(factory, "_reported", set())


def test_none_backend_checks_applies_only(tmp_repo):
    with open_sandbox(tmp_repo, SandboxConfig(backend="none")) as box:
        assert isinstance(box, NullSandbox)
        check = box.check_patch(DIFF)
        stale = box.check_patch(DIFF.replace("a + b", "a * b"))
        run = box.run(["true"])
    assert (check.applies, check.check_passed, check.check_status) == (True, None, "unavailable")
    assert "check: unavailable" in check.output
    assert (stale.applies, stale.check_status) == (False, "not run")
    assert (run.exit_code, run.available) == (-1, False)


def test_none_backend_uses_the_overlay(tmp_repo):
    with open_sandbox(tmp_repo, SandboxConfig(backend="none")) as box:
        check = box.check_patch(DIFF, overlay={"pkg/calc.py": "def add(x, y):\n    return 0\n"})
    assert check.applies is False


def test_local_backend(tmp_repo):
    with open_sandbox(tmp_repo, SandboxConfig(backend="local")) as box:
        assert isinstance(box, LocalSandbox)


def test_docker_backend_with_engine_and_image(tmp_repo):
    engine = FakeEngine()
    with open_sandbox(tmp_repo, SandboxConfig(backend="docker"), engine=engine) as box:
        assert isinstance(box, DockerSandbox)
        assert box.image.startswith("lsp-agent-sandbox:")


def test_sandbox_image_setting_wins(tmp_repo):
    settings = SandboxConfig(backend="docker", image="mine:1")
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
    settings = SandboxConfig(backend="docker")
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


@pytest.mark.parametrize(
    "engine",
    [FakeEngine(image_present=False), FakeEngine(start_error="the engine is down")],
    ids=["no image", "no engine"],
)
def test_auto_never_falls_back_to_the_host(tmp_repo, caplog, engine):
    with caplog.at_level(logging.WARNING):
        box = open_sandbox(tmp_repo, SandboxConfig(), engine=engine)
    assert isinstance(box, NullSandbox)
    check = box.check_patch(DIFF)
    assert (check.applies, check.check_status) == (True, "unavailable")
    assert "lsp-agent sandbox build" in check.output
    assert not box.run(["true"]).available
    text = " ".join(r.getMessage() for r in caplog.records)
    assert "lsp-agent sandbox build" in text


def test_a_remote_engine_is_refused_plainly(tmp_repo, monkeypatch):
    import docker

    monkeypatch.setenv("DOCKER_HOST", "tcp://build-box.invalid:2375")
    client = docker.DockerClient(base_url="tcp://build-box.invalid:2375", version="1.41")
    from sandbox.docker.docker_engine import DockerEngine
    from sandbox.docker.engine import EngineNotLocal

    with pytest.raises(EngineNotLocal, match="only a Docker engine on this machine"):
        DockerEngine(client)
    with open_sandbox(tmp_repo, SandboxConfig(backend="docker")) as box:
        assert isinstance(box, NullSandbox)
        check = box.check_patch(DIFF)
    assert "not on this machine" in check.output
    assert "sandbox/README.md" in check.output


def test_auto_prefers_docker(tmp_repo):
    with open_sandbox(tmp_repo, SandboxConfig(), engine=FakeEngine()) as box:
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


def test_repository_dotenv_cannot_choose_where_code_runs(tmp_repo, monkeypatch):
    # An opened repository is untrusted: its .env asking for the unisolated local
    # backend (and a command of its choosing) must not be read.
    monkeypatch.setenv("SANDBOX_BACKEND", "none")
    monkeypatch.delenv("CHECK_COMMAND", raising=False)
    (tmp_repo / ".env").write_text("SANDBOX_BACKEND=local\nCHECK_COMMAND=touch pwned\n")
    with open_sandbox(tmp_repo) as box:
        assert isinstance(box, NullSandbox)
        box.check_patch(DIFF)
    assert not (tmp_repo / "pwned").exists()


def test_config_from_environment_reads_four_keys_and_keeps_defaults_for_bad_values():
    config = SandboxConfig.from_environment(
        {
            "SANDBOX_BACKEND": "Docker",
            "SANDBOX_IMAGE": "mine:3",
            "SANDBOX_TIMEOUT_S": "12",
            "CHECK_COMMAND": "pytest -x",
        }
    )
    assert config == SandboxConfig("docker", "mine:3", 12.0, "pytest -x")
    bad = SandboxConfig.from_environment({"SANDBOX_BACKEND": "host", "SANDBOX_TIMEOUT_S": "0"})
    assert bad == SandboxConfig()
    assert SandboxConfig.from_environment({"SANDBOX_TIMEOUT_S": "2.5"}) == SandboxConfig()
    with pytest.raises(ValueError):
        SandboxConfig(backend="host")


def test_config_from_user_scope_reads_the_user_config_file_then_the_environment(tmp_path):
    (tmp_path / "lsp-agent").mkdir()
    (tmp_path / "lsp-agent" / "config.env").write_text("SANDBOX_BACKEND=none\nSANDBOX_IMAGE=a:1\n")
    env = {"XDG_CONFIG_HOME": str(tmp_path), "SANDBOX_IMAGE": "b:2"}
    assert SandboxConfig.from_user_scope(env) == SandboxConfig("none", "b:2")
    assert SandboxConfig.from_user_scope({}) == SandboxConfig()


def test_the_settings_parse_the_sandbox_keys_with_the_sandbox_rules():
    """One rule per key: a value the sandbox refuses, the settings refuse too."""
    from lsp_agent.settings import Settings, resolve

    values = {"SANDBOX_BACKEND": "host", "SANDBOX_TIMEOUT_S": "0", "SANDBOX_IMAGE": " x:1 "}
    settings, errors = resolve([("environment", values)])
    assert settings.sandbox_config() == SandboxConfig.from_environment(values)
    assert settings.sandbox_config() == SandboxConfig(image="x:1")
    assert sorted(e.key for e in errors) == ["SANDBOX_BACKEND", "SANDBOX_TIMEOUT_S"]
    assert Settings().sandbox_config() == SandboxConfig()


def test_every_backend_satisfies_the_protocol(tmp_repo):
    for backend in ("none", "local"):
        with open_sandbox(tmp_repo, SandboxConfig(backend=backend)) as box:
            assert isinstance(box, Sandbox)
            assert isinstance(box.run(["true"]), RunResult)
            assert isinstance(box.check_patch(DIFF, []), PatchCheck)
    with open_sandbox(tmp_repo, SandboxConfig(), engine=FakeEngine()) as box:
        assert isinstance(box, Sandbox)


def test_missing_repository_is_a_bug(tmp_path):
    with pytest.raises(NotADirectoryError):
        open_sandbox(tmp_path / "nope", SandboxConfig(backend="none"))
