"""`lsp-agent sandbox build|status` argument handling (building itself is in tests/e2e)."""

from __future__ import annotations

import argparse

import pytest

import sandbox.docker as docker_sandbox
import sandbox.docker.image_builder as builder
from lsp_agent.cli import sandbox_command


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="lsp-agent sandbox")
    sandbox_command.configure(parser)
    return parser.parse_args(list(argv))


def test_build_flags():
    assert vars(parse("build")) == {
        "sandbox_command": "build",
        "method": "offline",
        "force": False,
        "mirror": None,
    }
    args = parse("build", "--dockerfile", "--force", "--mirror", "http://m/debian")
    assert (args.method, args.force, args.mirror) == ("dockerfile", True, "http://m/debian")
    assert parse("build", "--offline").method == "offline"
    with pytest.raises(SystemExit):
        parse("build", "--offline", "--dockerfile")


def test_status_is_the_default():
    assert parse().sandbox_command == "status"
    assert parse("status").sandbox_command == "status"


def test_build_runs_the_builder_and_prints_the_tag(monkeypatch, capsys):
    calls = []

    def fake_build(**kwargs):
        calls.append(kwargs)
        return builder.BuildResult("lsp-agent-sandbox:abc", True, 1.0, kwargs["method"])

    monkeypatch.setattr(docker_sandbox, "build_image", fake_build)
    assert sandbox_command.run(parse("build", "--dockerfile", "--force")) == 0
    assert calls[0]["method"] == "dockerfile"
    assert calls[0]["force"] is True
    assert capsys.readouterr().out.strip() == "lsp-agent-sandbox:abc"


def test_build_failure_is_exit_1_with_the_reason(monkeypatch, capsys):
    def failing_build(**kwargs):
        raise builder.BuildError("debootstrap is not installed")

    monkeypatch.setattr(docker_sandbox, "build_image", failing_build)
    assert sandbox_command.run(parse("build")) == 1
    assert "debootstrap is not installed" in capsys.readouterr().err


def test_status_without_engine_says_so(monkeypatch, capsys):
    def no_engine(*args, **kwargs):
        raise docker_sandbox.EngineUnavailable("cannot reach the Docker engine")

    monkeypatch.setattr(docker_sandbox, "connect", no_engine)
    monkeypatch.setenv("SANDBOX_BACKEND", "auto")
    assert sandbox_command.run(parse("status")) == 1
    out = capsys.readouterr().out
    assert "unavailable" in out
    assert "local (NO isolation)" in out
