"""The project profile: which command checks the project (CHECK_COMMAND, else the automatic
rule), computed once per job, and the one list of skipped folders."""

from __future__ import annotations

import json

import pytest

from sandbox.project import (
    AUTO_CHECK_COMMAND,
    CARGO_TEST,
    GO_TEST,
    NPM_TEST,
    SKIPPED_DIRS,
    auto_check_command,
    node_test_script,
    project_profile,
    walk_files,
)
from tests.repo_samples import write

PACKAGE = {"name": "n", "version": "1.0.0", "scripts": {"test": "node test.js"}}


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"tests/test_a.py": "def test_a(): pass\n"}, AUTO_CHECK_COMMAND),
        ({"package.json": json.dumps(PACKAGE)}, NPM_TEST),
        ({"go.mod": "module example.com/m\n\ngo 1.19\n"}, GO_TEST),
        ({"Cargo.toml": '[package]\nname = "m"\nversion = "0.1.0"\n'}, CARGO_TEST),
        ({"README.md": "nothing to test\n"}, None),
        # pytest tests win over a package.json, npm over go.mod, go.mod over Cargo.toml
        (
            {"test_x.py": "def test_x(): pass\n", "package.json": json.dumps(PACKAGE)},
            AUTO_CHECK_COMMAND,
        ),
        ({"package.json": json.dumps(PACKAGE), "go.mod": "module m\n"}, NPM_TEST),
        ({"go.mod": "module m\n", "Cargo.toml": "[package]\n"}, GO_TEST),
    ],
)
def test_the_auto_command_follows_the_repository(tmp_path, files, expected):
    write(tmp_path, files)
    assert auto_check_command(tmp_path, walk_files(tmp_path)) == expected
    assert project_profile(tmp_path).check_command == expected


def test_npm_test_runs_through_npm_only_for_a_real_test_script(tmp_path):
    write(tmp_path, {"package.json": json.dumps(PACKAGE)})
    assert node_test_script(tmp_path) == "node test.js"
    placeholder = dict(PACKAGE, scripts={"test": 'echo "Error: no test specified" && exit 1'})
    (tmp_path / "package.json").write_text(json.dumps(placeholder))
    assert project_profile(tmp_path).check_command is None
    (tmp_path / "package.json").write_text(json.dumps(dict(PACKAGE, scripts={"lint": "x"})))
    assert project_profile(tmp_path).check_command is None
    (tmp_path / "package.json").write_text("not json")
    assert project_profile(tmp_path).check_command is None


def test_check_command_setting_wins_and_a_diff_adding_tests_counts(tmp_path):
    write(tmp_path, {"go.mod": "module m\n"})
    configured = project_profile(tmp_path, "make check FAST=1")
    assert configured.check_command == ("make", "check", "FAST=1") and configured.configured
    assert configured.describe_check() == "make check FAST=1 (CHECK_COMMAND)"
    assert project_profile(tmp_path).check_for(["tests/test_new.py"]) == GO_TEST
    (tmp_path / "go.mod").unlink()
    bare = project_profile(tmp_path)
    assert bare.check_command is None and "none found" in bare.describe_check()
    assert bare.check_for(["tests/test_new.py"]) == AUTO_CHECK_COMMAND


def test_skipped_folders_are_left_out_of_the_walk(tmp_path):
    write(tmp_path, {"app.py": "", "venv/lib/test_x.py": "", "node_modules/m/test_y.py": ""})
    assert walk_files(tmp_path) == ["app.py"]
    assert {"venv", "node_modules", ".git", ".tox"} <= SKIPPED_DIRS
    assert project_profile(tmp_path).check_command is None  # vendored tests are not the project's


def test_the_tools_and_the_sandbox_skip_the_same_folders():
    from sandbox.docker.repo_secrets import UNWALKED
    from tools.workspace import SKIPPED_DIRS as TOOLS_SKIP

    assert UNWALKED is SKIPPED_DIRS and TOOLS_SKIP is SKIPPED_DIRS
