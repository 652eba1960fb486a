"""The hardened git environment for run_cmd: a repository's programs do not run (real git)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from safety.git_hardening import HARDENED_GIT_CONFIG, hardened_git_env
from tests.conftest import git_init, require_component

GIT = shutil.which("git")


@pytest.fixture
def attack_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A repository holding an embedded bare repository whose config runs a program."""
    require_component("git", GIT is not None, "install git")
    assert GIT is not None
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "f.txt").write_text("one\n")
    git_init(repo)
    (repo / "f.txt").write_text("two\n")
    marker = tmp_path / "ran"
    payload = tmp_path / "payload.sh"
    payload.write_text(f"#!/bin/sh\necho ran >> {marker}\n")
    payload.chmod(0o755)
    bare = repo / "inner.git"
    subprocess.run([GIT, "init", "-q", "--bare", str(bare)], check=True)
    for key in ("core.fsmonitor", "diff.external", "core.pager"):
        subprocess.run([GIT, "config", "-f", str(bare / "config"), key, str(payload)], check=True)
    subprocess.run(
        [GIT, "config", "-f", str(repo / ".git" / "config"), "diff.external", str(payload)],
        check=True,
    )
    return repo, marker


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=30)


def _plain_env() -> dict[str, str]:
    return {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def test_without_hardening_the_repository_runs_its_program(attack_repo: tuple[Path, Path]) -> None:
    repo, marker = attack_repo
    assert GIT is not None
    _run([GIT, "status"], repo / "inner.git", _plain_env())
    _run([GIT, "diff"], repo, _plain_env())
    assert marker.exists()  # the attack works, so the next test can fail


def test_hardened_git_runs_no_repository_program(attack_repo: tuple[Path, Path]) -> None:
    repo, marker = attack_repo
    assert GIT is not None
    env = hardened_git_env(_plain_env())
    inner = _run([GIT, "status"], repo / "inner.git", env)
    assert inner.returncode != 0 and "bare repository" in inner.stderr
    diff = _run([GIT, "diff"], repo, env)
    assert diff.returncode == 0, diff.stderr
    assert "-one" in diff.stdout and "+two" in diff.stdout  # a plain diff still works
    log = _run([GIT, "log", "-p", "-1"], repo, env)
    assert log.returncode == 0, log.stderr
    assert not marker.exists()


def test_hardened_env_drops_other_git_variables() -> None:
    env = hardened_git_env({"GIT_DIR": "/elsewhere", "GIT_EXTERNAL_DIFF": "x", "HOME": "/h"})
    assert "GIT_DIR" not in env and "GIT_EXTERNAL_DIFF" not in env and env["HOME"] == "/h"
    assert env["GIT_CONFIG_COUNT"] == str(len(HARDENED_GIT_CONFIG))
    keys = {env[f"GIT_CONFIG_KEY_{i}"] for i in range(len(HARDENED_GIT_CONFIG))}
    assert {"safe.bareRepository", "core.fsmonitor", "core.hooksPath", "core.pager"} <= keys
