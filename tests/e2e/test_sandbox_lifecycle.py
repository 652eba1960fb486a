"""Warm container lifecycle on the real engine: removed on close, at exit and after kill -9;
replaced when it dies; fast enough to matter (the bench); the offline image build."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from sandbox import open_sandbox
from sandbox.config import SandboxConfig
from sandbox.docker_backend import DockerSandbox
from tests.conftest import in_ci

pytestmark = pytest.mark.docker

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def client():
    import docker

    engine = docker.from_env()
    yield engine
    engine.close()


def exists(client, container_id: str) -> bool:
    import docker

    try:
        client.api.inspect_container(container_id)
    except docker.errors.NotFound:
        return False
    return True


def wait_gone(client, container_id: str, seconds: float = 15) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not exists(client, container_id):
            return True
        time.sleep(0.2)
    return False


def owner_script(repo: Path, then: str) -> str:
    return textwrap.dedent(
        f"""
        import sys, time
        from sandbox.config import SandboxConfig
        from sandbox import open_sandbox
        box = open_sandbox({str(repo)!r}, SandboxConfig(backend="docker"))
        assert box.run(["true"]).ok
        print(box.container_id, flush=True)
        {then}
        """
    )


def test_close_removes_the_container(tmp_repo, sandbox_image, client):
    with open_sandbox(tmp_repo, SandboxConfig(backend="docker")) as box:
        assert isinstance(box, DockerSandbox)
        assert box.container_id is None  # created lazily
        box.run(["true"])
        container_id = box.container_id
        assert container_id is not None
        assert exists(client, container_id)
    assert wait_gone(client, container_id, 5)


def test_interpreter_exit_removes_the_container(tmp_repo, sandbox_image, client):
    proc = subprocess.run(
        [sys.executable, "-c", owner_script(tmp_repo, "sys.exit(0)  # no close()")],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=120,
        check=True,
    )
    container_id = proc.stdout.strip()
    assert wait_gone(client, container_id, 10)


def test_kill_9_of_the_owner_removes_the_container(tmp_repo, sandbox_image, client):
    proc = subprocess.Popen(
        [sys.executable, "-c", owner_script(tmp_repo, "time.sleep(600)")],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
    )
    try:
        assert proc.stdout is not None
        container_id = proc.stdout.readline().strip()
        assert exists(client, container_id)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert wait_gone(client, container_id, 15), "the container outlived its owner"


def test_a_container_killed_from_outside_is_replaced(tmp_repo, sandbox_image, client):
    with open_sandbox(tmp_repo, SandboxConfig(backend="docker")) as box:
        box.run(["true"])
        old = box.container_id
        client.api.kill(old)
        assert wait_gone(client, old, 10)
        result = box.run(["echo", "back"])
        assert result.stdout == "back\n"
        assert box.container_id != old
        assert box.containers_started == 2


def test_bench_reports_cold_and_warm_figures(sandbox_image):
    from lsp_agent.benchmarks.sandbox_bench import TARGET_RATIO, measure

    figures = measure(runs=3)
    print(f"sandbox bench: {figures}")
    # Speed targets are reported by `lsp-agent bench sandbox`, not asserted here.
    assert figures["cold_s"] > 0 and figures["warm_s"] > 0
    assert figures["ratio"] == pytest.approx(figures["warm_s"] / figures["cold_s"])
    assert figures["target_ratio"] == TARGET_RATIO
    assert figures["large_warm_s"] > 0 and figures["large_mb"] >= 300  # more than the tmpfs
    assert figures["size_ratio"] == pytest.approx(figures["large_warm_s"] / figures["warm_s"])
    assert figures["overlay"] == 1.0
    assert figures["npm_warm_s"] > 0 and figures["npm_test_run_s"] > 0
    assert figures["npm_baseline_ratio"] == pytest.approx(
        figures["npm_warm_s"] / figures["npm_test_run_s"]
    )


@pytest.mark.skipif(
    not in_ci() and os.environ.get("LSP_AGENT_TEST_IMAGE_BUILD", "") != "1",
    reason="downloads Debian packages (about two minutes); runs in CI or with "
    "LSP_AGENT_TEST_IMAGE_BUILD=1",
)
def test_offline_build_makes_a_working_image(tmp_repo, docker_engine, client):
    from sandbox.docker.image_builder import build_image

    tag = "lsp-agent-sandbox-test:offline"
    result = build_image(method="offline", force=True, tag=tag)
    try:
        assert result.built is True
        settings = SandboxConfig(backend="docker", image=tag)
        with open_sandbox(tmp_repo, settings) as box:
            assert isinstance(box, DockerSandbox)
            out = box.run(["sh", "-c", "id -u; git --version; python -m pytest --version"])
            node = box.run(["sh", "-c", "node --version; npm --version; echo $NODE_OPTIONS"])
        assert out.stdout.startswith("65534\ngit version")
        assert "pytest" in out.stdout + out.stderr
        versions = node.stdout.split("\n")
        assert versions[0].startswith("v18.") and versions[1].startswith("9."), node.stderr
        assert versions[2] == "--require /usr/lib/lsp-agent/node-hermetic.js"
    finally:
        client.images.remove(tag, force=True)
