"""What a check says when the image lacks its toolchain (which command checks a patch is the
project profile's answer: tests/unit/sandbox/test_project.py)."""

from __future__ import annotations

import pytest

from sandbox.checks.command import toolchain_problem
from sandbox.checks.test_results import check_run, compare, environment_problem
from sandbox.config import SandboxConfig
from sandbox.docker_backend import DockerSandbox
from sandbox.project import CARGO_TEST, GO_TEST, NPM_TEST
from sandbox.protocol import PatchCheck
from tests.fake_engine import FakeEngine
from tests.repo_samples import write

PACKAGE = {"name": "n", "version": "1.0.0", "scripts": {"test": "node test.js"}}
ADD_FILE = "--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+hello\n"


def test_a_missing_toolchain_names_the_package_and_the_readme():
    present = toolchain_problem(GO_TEST, lambda name: True)
    missing = toolchain_problem(GO_TEST, lambda name: name != "go")
    assert present == ""
    assert "`go` is not in the sandbox image" in missing
    assert "golang-go" in missing and "sandbox/README.md" in missing
    assert "CHECK_COMMAND" in missing
    assert "`cargo`" in toolchain_problem(CARGO_TEST, lambda name: False)
    assert "`npm`" in toolchain_problem(NPM_TEST, lambda name: False)
    # Only the auto commands' toolchains are asked about.
    asked: list[str] = []
    assert toolchain_problem(("make", "test"), lambda name: asked.append(name) or False) == ""
    assert asked == []


def test_a_check_whose_toolchain_the_image_lacks_cannot_run_but_still_applies(tmp_path):
    repo = write(tmp_path / "go-repo", {"go.mod": "module m\n", "main.go": "package main\n"})
    engine = FakeEngine(programs={"go": False, "cargo": False})
    with DockerSandbox(repo, SandboxConfig(), engine=engine, image="img:1") as box:
        result = box.check_patch(ADD_FILE)
    assert (result.applies, result.check_status, result.check_passed) == (
        True,
        "cannot run",
        None,
    )
    assert result.check_command == GO_TEST
    assert "`go` is not in the sandbox image" in result.summary()
    assert "sandbox/README.md" in result.summary()
    assert len(engine.requests) == 1  # apply only: no baseline, no command
    assert engine.requests[0][1]["command"] is None


def test_a_check_with_its_toolchain_in_the_image_runs_the_command(tmp_path):
    repo = write(tmp_path / "go-repo", {"go.mod": "module m\n"})
    engine = FakeEngine(programs={"go": True})
    with DockerSandbox(repo, SandboxConfig(), engine=engine, image="img:1") as box:
        result = box.check_patch(ADD_FILE)
    assert result.check_command == GO_TEST
    assert "not in the sandbox image" not in result.problem
    assert [job["command"] for _, job, _ in engine.requests] == [list(GO_TEST)] * 2


@pytest.mark.parametrize(
    ("output", "problem"),
    [
        (
            "Error: Cannot find module 'is-number'\nRequire stack:\n- /sandbox/tree-0/lib.js",
            "Cannot find module 'is-number' (a Node dependency)",
        ),
        (
            "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'left-pad' imported from /x.mjs",
            "Cannot find module 'left-pad' (a Node dependency)",
        ),
        (
            "main.go:3:8: no required module provides package github.com/x/y; to add it:",
            "Go modules are not available offline (the check has no network)",
        ),
        (
            "error: failed to get `serde` as a dependency of package `m v0.1.0`",
            "Rust crates are not available offline (the check has no network)",
        ),
        ("Error: Cannot find module './lib'\nRequire stack:", None),  # the project's own file
        ("Error: Cannot find module '/sandbox/tree-0/x.js'", None),
    ],
)
def test_a_missing_node_package_is_an_environment_problem(output, problem):
    assert environment_problem(output, 1) == problem


def test_without_a_per_test_report_the_exit_statuses_decide_and_the_summary_says_so():
    failing = check_run(1, "AssertionError", None)
    passing = check_run(0, "ok", None)
    fixed = compare(failing, passing)
    assert (fixed.verdict, fixed.per_test, fixed.failing_before) == ("passed", False, True)
    broken = compare(passing, failing)
    assert (broken.verdict, broken.per_test) == ("failed", False)

    def summary(passed: bool, failing_before: bool) -> str:
        check = PatchCheck(
            applies=True,
            check_passed=passed,
            output="",
            duration_s=0.1,
            backend="docker",
            check_command=NPM_TEST,
            failing_before=failing_before,
            exit_status_only=True,
        )
        return check.summary()

    assert summary(True, True) == (
        "applies: yes; check: passed [docker] — by exit status only (no per-test report): "
        "failing before the patch, passing after — npm test"
    )
    assert "passing before the patch, failing after" in summary(False, False)
    assert "failing before the patch too" in summary(False, True)
    assert "passing before the patch too" in summary(True, False)


def test_offline_go_modules_cannot_run_and_the_fix_is_to_vendor_them():
    output = "main.go:3:8: no required module provides package github.com/x/y; to add it:"
    result = compare(check_run(1, output, None), check_run(1, output, None))
    assert result.verdict == "cannot run"
    assert "vendor them in the repository" in result.problem
    assert "lsp-agent sandbox prepare" not in result.problem
