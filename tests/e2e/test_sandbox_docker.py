"""The Docker sandbox against the real engine: checks, hardening as created, bad input."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sandbox import open_sandbox
from sandbox.config import SandboxConfig
from sandbox.docker import git_view
from sandbox.docker_backend import DockerSandbox
from sandbox.null_backend import NullSandbox
from tests.repo_samples import BROKEN_CALC_DIFF as BROKEN
from tests.repo_samples import CALC_DIFF as DIFF
from tests.repo_samples import tree_digest

pytestmark = pytest.mark.docker


@pytest.fixture
def box(tmp_repo, sandbox_image):
    sandbox = open_sandbox(tmp_repo, SandboxConfig(backend="docker", timeout_s=20))
    assert isinstance(sandbox, DockerSandbox)
    before = tree_digest(tmp_repo)
    yield sandbox
    sandbox.close()
    assert tree_digest(tmp_repo) == before, "the host repository changed"


def docker_api():
    import docker

    return docker.from_env().api


def test_check_patch_passes_and_fails_for_real(box):
    passed = box.check_patch(DIFF)
    assert (passed.applies, passed.check_passed, passed.backend) == (True, True, "docker")
    assert "1 passed" in passed.output
    failed = box.check_patch(BROKEN)
    assert (failed.applies, failed.check_passed) == (True, False)
    assert "assert -1 == 5" in failed.output
    assert box.containers_started == 1


def test_overlay_stands_in_for_unsaved_buffers(box):
    unsaved = {
        "tests/test_calc.py": "from pkg.calc import add\n\n\ndef test_add():\n"
        "    assert add(2, 3) == 6\n"
    }
    result = box.check_patch(DIFF, overlay=unsaved)
    # The unsaved test fails with and without the patch: nothing broke, one still failing.
    assert (result.applies, result.check_passed) == (True, True)
    assert result.still_failing == ("tests/test_calc.py::test_add",)
    assert "assert 5 == 6" in result.output


def test_diff_that_does_not_apply(box):
    result = box.check_patch(DIFF.replace("a + b", "a * b"))
    assert (result.applies, result.check_passed) == (False, None)
    assert "patch does not apply" in result.output


@pytest.mark.parametrize(
    ("diff", "words"),
    [
        ("this is not a diff", "no file changes found"),
        ("--- a/x.py\n+++ b/x.py\n@@ -1,5 +1,5 @@\n-a\n+b\n", "does not parse"),
        (DIFF.replace("a/pkg", "/etc").replace("b/pkg", "/etc"), "absolute"),
        (DIFF.replace("a/pkg", "a/../..").replace("b/pkg", "b/../.."), "leaves the repository"),
        ("Binary files a/logo.png and b/logo.png differ\n", "binary"),
    ],
)
def test_bad_diffs_get_a_clear_result(box, diff, words):
    result = box.check_patch(diff)
    assert (result.applies, result.check_passed) == (False, None)
    assert words in result.output


def test_run_works_in_a_fresh_copy(box):
    first = box.run(
        ["sh", "-c", "pwd; echo new > pkg/new.py; sed -i s/a/z/ pkg/calc.py; cat pkg/*"]
    )
    again = box.run(["sh", "-c", "pwd; cat pkg/*"])
    assert first.stdout.splitlines() == [
        "/sandbox/tree-0",
        "def zdd(a, b):",
        "    return z + b",
        "new",
    ]
    assert again.stdout.splitlines() == ["/sandbox/tree-1", "def add(a, b):", "    return a + b"]
    assert box.run(["git", "--version"]).exit_code == 0


def test_container_is_created_with_every_hardening_option(box, tmp_repo, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-do-not-leak")
    box.run(["true"])
    info = docker_api().inspect_container(box.container_id)
    host, config = info["HostConfig"], info["Config"]
    assert host["NetworkMode"] == "none"
    assert host["CapDrop"] == ["ALL"]
    assert not host["CapAdd"]
    assert host["SecurityOpt"] == ["no-new-privileges"]
    assert host["ReadonlyRootfs"] is True
    assert "noexec" in host["Tmpfs"]["/tmp"]
    assert host["Memory"] == host["MemorySwap"] == 512 * 1024 * 1024
    assert host["NanoCpus"] == 500_000_000
    assert host["PidsLimit"] == 100
    assert host["Privileged"] is False
    assert host["PidMode"] in ("", "private")
    assert host["UTSMode"] in ("", "private")
    assert host["IpcMode"] == "private"
    assert not host["Binds"]
    targets = [mount["Target"] for mount in host["Mounts"]]
    trees = [f"/sandbox/tree-{index}" for index in range(8)]
    assert sorted(targets) == sorted([*trees, *(f"{tree}/.git" for tree in trees)])
    for mount in host["Mounts"]:  # copy-on-write views: the read-only lower layer is the
        options = mount["VolumeOptions"]["DriverConfig"]["Options"]  # repository, or the
        assert options["type"] == "overlay"  # view's own .git (sandbox/docker/git_view.py)
        lower = f"{tmp_repo}," if mount["Target"] in trees else str(git_view.cache_dir())
        assert options["o"].startswith(f"lowerdir={lower}"), options
    assert not any("docker.sock" in str(mount) for mount in info["Mounts"])
    assert host["AutoRemove"] is True
    assert config["User"] == "65534:65534"  # the repository belongs to root: nobody
    assert not any("sk-do-not-leak" in entry for entry in config["Env"])


def test_inside_the_container(box):
    script = (
        "id -u; id -g; grep -E '^(Seccomp|NoNewPrivs|CapEff):' /proc/self/status;"
        "grep ' /tmp ' /proc/mounts; ls /sys/class/net;"
        "cat /sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/pids.max 2>/dev/null;"
        "cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/memory.max 2>/dev/null;"
        "cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu.max 2>/dev/null;"
        "env"
    )
    out = box.run(["sh", "-c", script]).stdout
    lines = out.splitlines()
    assert lines[:2] == ["65534", "65534"]
    assert "Seccomp:\t2" in out  # Docker's default seccomp filter is on
    assert "NoNewPrivs:\t1" in out
    assert "CapEff:\t0000000000000000" in out
    tmp_mount = next(line for line in lines if " /tmp " in line)
    assert "noexec" in tmp_mount
    assert "nosuid" in tmp_mount
    assert not any(" /workspace " in line for line in lines)
    assert "lo" in lines
    assert "eth0" not in lines
    assert "100" in lines
    assert "536870912" in lines
    assert "50000" in out
    assert "HOME=/tmp" in out
    assert "OPENAI" not in out


def test_missing_image_means_check_unavailable_with_the_fix(tmp_repo, docker_engine):
    settings = SandboxConfig(backend="docker", image="lsp-agent-sandbox:000000000000")
    with open_sandbox(tmp_repo, settings) as box:
        assert isinstance(box, NullSandbox)
        result = box.check_patch(DIFF)
    assert (result.applies, result.check_status, result.available) == (True, "unavailable", False)
    assert "lsp-agent sandbox build" in result.output


def test_status_command_reports_ready(sandbox_image, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "lsp_agent.cli.sandbox_command", "status"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "SANDBOX_BACKEND": "docker"},
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sandbox_image in proc.stdout
    assert "would use:       docker" in proc.stdout
