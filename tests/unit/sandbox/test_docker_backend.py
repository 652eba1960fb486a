"""DockerSandbox's logic on a fake engine: lazy warm container, reuse, replacement, errors."""

from __future__ import annotations

import gc
import hashlib
from pathlib import Path

import pytest

from sandbox.config import SandboxConfig
from sandbox.docker_backend import DockerSandbox
from tests.fake_engine import FakeEngine
from tests.repo_samples import BROKEN_CALC_DIFF as BROKEN
from tests.repo_samples import CALC_DIFF as DIFF

CHECK = ["python", "-c", "from pkg.calc import add; assert add(2, 3) == 5, add(2, 3)"]


def digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and ".git" not in path.parts:
            h.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return h.hexdigest()


@pytest.fixture
def engine() -> FakeEngine:
    return FakeEngine()


@pytest.fixture
def box(tmp_repo, engine):
    sandbox = DockerSandbox(
        tmp_repo, SandboxConfig(timeout_s=5), engine=engine, image="img:1", owns_engine=False
    )
    yield sandbox
    sandbox.close()


def test_container_is_created_lazily_and_reused(box, engine):
    assert engine.channels == []
    assert box.check_patch(DIFF, CHECK).check_passed is True
    assert box.check_patch(BROKEN, CHECK).check_passed is False
    assert box.run(["true"]).exit_code == 0
    assert len(engine.channels) == 1
    assert box.containers_started == 1
    assert {cid for cid, _, _ in engine.requests} == {box.container_id}


def test_jobs_use_container_paths_and_the_configured_timeout(box, engine):
    box.check_patch(DIFF, CHECK)
    _, job, host_timeout = engine.requests[-1]
    assert job["source"] == "/workspace"
    assert job["work"] == "/tmp/work"
    assert ".git" in job["excludes"]
    assert job["timeout_s"] == 5
    assert host_timeout > 5  # the host-side guard fires after the in-container one


def test_patch_check_results(box, tmp_repo):
    before = digest(tmp_repo)
    passed = box.check_patch(DIFF, CHECK)
    assert (passed.applies, passed.check_passed, passed.check_status) == (True, True, "passed")
    assert passed.files == ("pkg/calc.py",)
    assert passed.check_command == tuple(CHECK)
    failed = box.check_patch(BROKEN, CHECK)
    assert (failed.applies, failed.check_passed) == (True, False)
    assert "AssertionError" in failed.output
    assert "-1" in failed.output
    stale = box.check_patch(DIFF.replace(" def add(a, b):", " def add(x, y):"), CHECK)
    assert (stale.applies, stale.check_passed) == (False, None)
    assert "does not apply" in stale.output
    no_check = box.check_patch(DIFF, [])
    assert (no_check.applies, no_check.check_passed, no_check.check_status) == (
        True,
        None,
        "not run",
    )
    assert digest(tmp_repo) == before


JUNIT_OPTIONS = ["--junitxml=/tmp/lsp-agent-junit.xml", "-o", "junit_family=xunit1"]


def test_default_check_is_pytest_when_the_repo_has_tests(tmp_repo, engine):
    settings = SandboxConfig(timeout_s=120)  # real pytest runs on a busy machine
    with DockerSandbox(tmp_repo, settings, engine=engine, image="i", owns_engine=False) as box:
        check = box.check_patch(DIFF)
    assert check.check_status == "passed", check.output
    assert check.check_command == ("python", "-m", "pytest", "-q")
    # The patched run and the unpatched baseline, both asked for a JUnit report.
    patched, baseline = engine.requests[-2][1], engine.requests[-1][1]
    assert patched["command"] == ["python", "-m", "pytest", "-q", *JUNIT_OPTIONS]
    assert (patched["diff"] is not None, baseline["diff"]) == (True, None)
    assert baseline["command"] == patched["command"]
    assert patched["junit_path"] == "/tmp/lsp-agent-junit.xml"


def test_configured_check_command_is_split(tmp_repo, engine):
    settings = SandboxConfig(check_command="python -m pytest -x 'tests/test_calc.py'")
    with DockerSandbox(tmp_repo, settings, engine=engine, image="i", owns_engine=False) as box:
        box.check_patch(DIFF)
    assert engine.requests[-1][1]["command"] == [
        "python",
        "-m",
        "pytest",
        "-x",
        "tests/test_calc.py",
        *JUNIT_OPTIONS,
    ]


def test_overlay_is_applied_before_the_diff(box, tmp_repo):
    unsaved = {"pkg/calc.py": "def add(a, b):\n    return a + b + 0\n"}
    result = box.check_patch(DIFF, CHECK, overlay=unsaved)
    assert result.applies is False
    assert (tmp_repo / "pkg" / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"


@pytest.mark.parametrize(
    ("diff", "words"),
    [
        ("not a diff at all", "no file changes"),
        (DIFF.replace("a/pkg", "/etc").replace("b/pkg", "/etc"), "absolute"),
        (DIFF.replace("a/pkg", "a/../x").replace("b/pkg", "b/../x"), "leaves the repository"),
        ("Binary files a/x.png and b/x.png differ\n", "binary"),
    ],
)
def test_bad_input_is_a_result_and_runs_nothing(box, engine, diff, words):
    result = box.check_patch(diff)
    assert result.applies is False
    assert result.check_passed is None
    assert words in result.output
    assert engine.channels == []


def test_bad_overlay_path_is_a_result(box):
    result = box.check_patch(DIFF, CHECK, overlay={"/etc/passwd": "x"})
    assert result.applies is False
    assert "overlay path" in result.output


def test_in_container_timeout_replaces_the_container(box, engine):
    result = box.run(["sleep", "10"], timeout_s=1)
    assert result.timed_out is True
    assert "longer than 1 s" in result.stderr
    assert engine.removed == [engine.channels[0].container_id]
    assert box.container_id is None
    assert box.run(["true"]).exit_code == 0
    assert box.containers_started == 2


def test_host_side_timeout_replaces_the_container(box, engine):
    engine.script.append("timeout")
    result = box.run(["true"])
    assert result.timed_out is True
    assert len(engine.removed) == 1
    assert box.run(["true"]).ok
    assert box.containers_started == 2


def test_crashed_container_is_replaced_before_the_next_job(box, engine):
    box.run(["true"])
    engine.crash_current()
    assert box.run(["echo", "hi"]).stdout == "hi\n"
    assert box.containers_started == 2
    assert engine.removed == [engine.channels[0].container_id]


def test_container_dying_mid_job_is_reported_not_raised(box, engine):
    engine.script.append("broken")
    result = box.run(["true"])
    assert (result.exit_code, result.available) == (-1, False)
    assert "died" in result.stderr
    engine.script.append("broken")
    check = box.check_patch(DIFF, CHECK)
    assert (check.applies, check.check_status, check.available) == (True, "unavailable", False)
    assert "died" in check.output
    assert box.run(["true"]).ok


def test_engine_failure_gives_check_unavailable(tmp_repo):
    engine = FakeEngine(
        start_error="the sandbox image img does not exist: run `lsp-agent sandbox build`"
    )
    with DockerSandbox(tmp_repo, SandboxConfig(), engine=engine, image="img") as box:
        check = box.check_patch(DIFF, CHECK)
        run = box.run(["true"])
    assert (check.applies, check.check_passed, check.available) == (True, None, False)
    assert check.check_status == "unavailable"
    assert "lsp-agent sandbox build" in check.output
    assert run.available is False
    assert "lsp-agent sandbox build" in run.stderr
    assert engine.closed is True  # owned engines are closed with the sandbox


def test_close_removes_the_container_and_is_final(box, engine):
    box.run(["true"])
    box.close()
    box.close()
    assert engine.removed == [engine.channels[0].container_id]
    with pytest.raises(RuntimeError, match="closed"):
        box.run(["true"])


def test_garbage_collection_removes_the_container(tmp_repo, engine):
    box = DockerSandbox(tmp_repo, SandboxConfig(), engine=engine, image="i", owns_engine=False)
    box.run(["true"])
    del box
    gc.collect()
    assert engine.removed == [engine.channels[0].container_id]


def test_string_argv_is_a_bug(box):
    with pytest.raises(TypeError):
        box.run("echo hi")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        box.check_patch(DIFF, "pytest -q")  # type: ignore[arg-type]
