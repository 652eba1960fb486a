"""Every confinement option the container is created with (the real engine is in tests/e2e)."""

from __future__ import annotations

import pytest

from sandbox.docker.hardening import SANDBOX_ENV, container_options, host_config_options

BINDS = {"/repo": {"bind": "/workspace", "mode": "ro"}}


def test_host_config_confines_the_container():
    options = host_config_options(BINDS, [], auto_remove=True)
    assert options["network_mode"] == "none"
    assert options["cap_drop"] == ["ALL"]
    assert options["security_opt"] == ["no-new-privileges"]  # default seccomp stays on
    assert options["read_only"] is True
    assert "noexec" in options["tmpfs"]["/tmp"]
    assert options["mem_limit"] == options["memswap_limit"] == "512m"
    assert options["nano_cpus"] == 500_000_000
    assert options["pids_limit"] == 100
    assert options["binds"] == {"/repo": {"bind": "/workspace", "mode": "ro"}}
    assert options["privileged"] is False
    assert options["init"] is True


def test_no_host_namespaces_no_socket_no_devices():
    options = host_config_options(BINDS, [], auto_remove=False)
    for key in ("pid_mode", "userns_mode", "uts_mode", "devices", "cap_add", "volumes_from"):
        assert key not in options
    assert options["ipc_mode"] == "private"
    assert not any("docker.sock" in source for source in options["binds"])


def test_container_runs_as_nobody_with_a_clean_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    options = container_options("img:1", ["true"], stdin_open=True)
    assert options["user"] == "65534:65534"
    assert container_options("img:1", ["true"], stdin_open=True, user="1000:1000")["user"] == (
        "1000:1000"
    )
    with pytest.raises(ValueError, match="never runs as root"):
        container_options("img:1", ["true"], stdin_open=True, user="0:0")
    assert options["environment"] == SANDBOX_ENV
    assert "sk-secret" not in str(options)
    assert options["network_disabled"] is True
    assert options["stdin_open"] is True
    assert options["detach"] is False  # attached stdin: the container ends with this process
    assert options["labels"]["lsp-agent.sandbox"] == "1"


def test_no_bytecode_caches_that_could_go_stale():
    assert SANDBOX_ENV["PYTHONDONTWRITEBYTECODE"] == "1"
    assert "PYTHONPYCACHEPREFIX" not in SANDBOX_ENV


def test_a_prepared_project_env_is_on_pythonpath():
    # (the read-only bind of the environment is the engine's: tests/e2e, prepare)
    with_env = container_options("img:1", ["true"], stdin_open=True, project_env=True)
    assert with_env["environment"]["PYTHONPATH"] == "/opt/lsp-agent-env"
    assert "PYTHONPATH" not in container_options("img:1", ["true"], stdin_open=True)["environment"]


def test_every_container_has_a_log_limit():
    """Attached containers log nothing; those whose log is read keep at most 2 MB."""
    assert host_config_options(BINDS, [], auto_remove=True)["log_config"] == {
        "type": "none",
        "config": {},
    }
    read = host_config_options(BINDS, [], auto_remove=False, logs_read=True)["log_config"]
    assert read == {"type": "json-file", "config": {"max-size": "2m", "max-file": "1"}}


def test_no_container_is_created_without_the_shared_host_config():
    """`host_config_options` is the one place: no `create_host_config` call goes around it."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[4]
    for path in sorted((root / "sandbox").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert text.count("create_host_config(") == text.count("**host_config_options("), path
