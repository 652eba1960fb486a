"""Go and Rust checks on the real default image, which has neither toolchain: the driver
says so when its container starts, and the check applies the diff and says `cannot run`,
pointing at the README section that explains how to add one (never `failed`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox import open_sandbox
from sandbox.config import SandboxConfig
from sandbox.docker_backend import DockerSandbox
from sandbox.project import CARGO_TEST, GO_TEST
from tests.conftest import git_init

pytestmark = pytest.mark.docker

ADD_NOTE = "--- /dev/null\n+++ b/NOTES.md\n@@ -0,0 +1 @@\n+checked\n"


@pytest.mark.parametrize(
    "case",
    [
        (
            {"go.mod": "module example.com/m\n\ngo 1.19\n", "m.go": "package m\n"},
            GO_TEST,
            "go",
            "golang-go",
        ),
        (
            {"Cargo.toml": '[package]\nname = "m"\nversion = "0.1.0"\n', "src/lib.rs": ""},
            CARGO_TEST,
            "cargo",
            "cargo",
        ),
    ],
)
def test_a_toolchain_missing_from_the_image_cannot_run(tmp_path, sandbox_image, case):
    files, command, program, package = case
    repo = tmp_path / "repo"
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git_init(repo)
    with open_sandbox(repo, SandboxConfig(backend="docker", timeout_s=60)) as box:
        assert isinstance(box, DockerSandbox)
        assert box.has_program("node") and box.has_program("npm")
        assert not box.has_program(program)
        result = box.check_patch(ADD_NOTE)
        broken = box.check_patch("--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-x\n+y\n")
    assert (result.applies, result.check_status, result.check_passed) == (
        True,
        "cannot run",
        None,
    )
    assert result.check_command == command
    summary = result.summary()
    assert f"`{program}` is not in the sandbox image" in summary
    assert f"`{package}`" in summary and 'sandbox/README.md, "Adding a toolchain"' in summary
    assert (broken.applies, broken.check_status) == (False, "not run")
    assert not (Path(repo) / "NOTES.md").exists()
