"""Result types and the package's import hygiene."""

from __future__ import annotations

import subprocess
import sys

from sandbox.protocol import PatchCheck, RunResult


def test_check_status_and_summary():
    passed = PatchCheck(True, True, "ok", 0.1, backend="docker", check_command=("pytest", "-q"))
    assert passed.check_status == "passed"
    assert passed.summary() == "applies: yes; check: passed (pytest -q) [docker]"
    assert PatchCheck(True, False, "", 0.1).check_status == "failed"
    assert PatchCheck(True, False, "", 0.1, timed_out=True).check_status == "timed out"
    assert PatchCheck(True, None, "", 0.1, available=False).check_status == "unavailable"
    assert PatchCheck(False, None, "", 0.1, available=False).check_status == "not run"
    assert PatchCheck(True, None, "", 0.1).check_status == "not run"
    assert passed.to_dict()["check_status"] == "passed"


def test_run_result_ok():
    assert RunResult(0, "", "", False, 0.1).ok
    assert not RunResult(0, "", "", True, 0.1).ok
    assert not RunResult(-1, "", "", False, 0.0, available=False).ok


def test_sandbox_never_imports_the_heavy_layers():
    code = (
        "import sys, sandbox, sandbox.factory, sandbox.docker.docker_engine\n"
        "import sandbox.docker.image_builder\n"
        "bad = [m for m in ('pygls', 'lsprotocol', 'smolagents', 'litellm') if m in sys.modules]\n"
        "print(','.join(bad))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == ""
