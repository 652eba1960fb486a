"""The job driver, run on the host: copying, overlay, apply, timeouts, capture, modes."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sandbox.checks.driver import MARKER
from sandbox.checks.driver_script import driver_source
from sandbox.checks.driver_steps import Capped, run_job
from sandbox.project import SKIPPED_DIRS as COPY_EXCLUDES
from tests.repo_samples import CALC_DIFF as DIFF


def job(repo: Path, work: Path, **changes):
    base = {
        "source": str(repo),
        "work": str(work),
        "excludes": list(COPY_EXCLUDES),
        "overlay": {},
        "diff": None,
        "strip": 1,
        "command": None,
        "merge_output": False,
        "timeout_s": 20,
        "output_limit": 10_000,
    }
    base.update(changes)
    return base


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_copy_skips_git_and_caches_and_applies_to_the_copy(tmp_repo, tmp_path):
    (tmp_repo / "node_modules").mkdir()
    (tmp_repo / "node_modules" / "big.js").write_text("x")
    before = snapshot(tmp_repo)
    work = tmp_path / "work"
    answer = run_job(job(tmp_repo, work, diff=DIFF, command=["cat", "pkg/calc.py"]))
    assert answer["applies"] is True
    assert answer["exit_code"] == 0
    assert "return b + a" in answer["stdout"]
    assert not (work / ".git").exists()
    assert not (work / "node_modules").exists()
    assert snapshot(tmp_repo) == before


def test_overlay_replaces_disk_text_before_the_diff(tmp_repo, tmp_path):
    overlay = {"pkg/calc.py": "def add(x, y):\n    return x + y\n"}
    answer = run_job(job(tmp_repo, tmp_path / "w", diff=DIFF, overlay=overlay))
    assert answer["applies"] is False
    assert "patch does not apply" in answer["apply_output"]
    overlay = {"pkg/new.py": "N = 1\n"}
    answer = run_job(job(tmp_repo, tmp_path / "w", overlay=overlay, command=["cat", "pkg/new.py"]))
    assert answer["stdout"] == "N = 1\n"


def test_symlinks_leading_outside_are_left_out_of_the_copy(tmp_repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("host file")
    (tmp_repo / "link").symlink_to(outside)
    (tmp_repo / "inside").symlink_to("pkg")
    work = tmp_path / "w"
    answer = run_job(job(tmp_repo, work, command=["cat", "link/secret.txt"]))
    assert answer["exit_code"] != 0
    assert "host file" not in answer["stdout"]
    assert not (work / "link").exists()
    assert (work / "inside").is_symlink()  # a link within the repository is kept


def test_overlay_cannot_escape_through_a_symlink(tmp_repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_repo / "link").symlink_to(outside)
    # A work tree given as is (the container's copy-on-write view) keeps its symlinks.
    answer = run_job(job(tmp_repo, tmp_path / "w", tree=str(tmp_repo), overlay={"link/e.py": "x"}))
    assert "leads out of the repository" in answer["error"]
    assert not (outside / "e.py").exists()


def test_unreadable_source_is_reported(tmp_path):
    answer = run_job(job(tmp_path / "missing", tmp_path / "w", copy_hint=" HINT"))
    assert answer["stage"] == "copy"
    assert "cannot copy the repository" in answer["error"]
    assert answer["error"].endswith(" HINT")


def test_timeout_kills_the_whole_process_group(tmp_repo, tmp_path):
    marker = tmp_path / "late"
    script = f"sleep 30 & sleep 5; touch {marker}"
    started = time.monotonic()
    answer = run_job(job(tmp_repo, tmp_path / "w", command=["sh", "-c", script], timeout_s=1))
    assert answer["timed_out"] is True
    assert answer["exit_code"] == 137
    assert time.monotonic() - started < 5
    time.sleep(0.2)
    assert not marker.exists()


def test_exit_codes_and_separate_or_merged_streams(tmp_repo, tmp_path):
    command = ["sh", "-c", "echo out; echo err >&2; exit 3"]
    answer = run_job(job(tmp_repo, tmp_path / "w", command=command))
    assert (answer["exit_code"], answer["stdout"], answer["stderr"]) == (3, "out\n", "err\n")
    answer = run_job(job(tmp_repo, tmp_path / "w", command=command, merge_output=True))
    assert answer["stdout"] == "out\nerr\n"


def test_missing_program_is_a_result(tmp_repo, tmp_path):
    answer = run_job(job(tmp_repo, tmp_path / "w", command=["no-such-program-xyz"]))
    assert answer["exit_code"] == 127
    assert "no-such-program-xyz" in answer["stderr"]


def test_output_keeps_head_and_tail():
    capped = Capped(100)
    for n in range(100):
        capped.add(f"{n:04d}\n".encode())
    text = capped.text()
    assert text.startswith("0000\n")
    assert text.endswith("0099\n")
    assert "bytes omitted" in text
    assert len(text) < 200


def test_flooding_output_is_capped(tmp_repo, tmp_path):
    command = [sys.executable, "-c", "print('x' * 5_000_000)"]
    answer = run_job(job(tmp_repo, tmp_path / "w", command=command, output_limit=1000))
    assert answer["exit_code"] == 0
    assert len(answer["stdout"]) < 2000


def _driver(args: list[str], stdin: bytes = b"", timeout: float = 60) -> list[dict]:
    proc = subprocess.run(
        [sys.executable, "-c", driver_source(), *args],
        input=stdin,
        capture_output=True,
        timeout=timeout,
        check=True,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )
    lines = proc.stdout.decode().splitlines()
    return [json.loads(line[len(MARKER) :]) for line in lines if line.startswith(MARKER)]


def test_shipped_source_runs_once_mode_with_in_process_pytest(tmp_repo, tmp_path):
    payload = job(tmp_repo, tmp_path / "w", diff=DIFF, command=["pytest", "-q"])
    payload["merge_output"] = True
    (answer,) = _driver(["once", base64.b64encode(json.dumps(payload).encode()).decode()])
    assert answer["applies"] is True
    assert answer["exit_code"] == 0, answer
    assert "1 passed" in answer["stdout"]


def test_serve_mode_answers_each_job_and_exits_at_eof(tmp_repo, tmp_path):
    failing = DIFF.replace("+    return b + a", "+    return a - b")
    requests = [
        {"id": "one", "job": job(tmp_repo, tmp_path / "w", diff=DIFF, command=["pytest", "-q"])},
        {"id": "two", "job": job(tmp_repo, tmp_path / "w", diff=failing, command=["pytest"])},
        {"id": "three", "job": job(tmp_repo, tmp_path / "w", command=["sleep", "9"], timeout_s=1)},
    ]
    stdin = b"".join(json.dumps(r).encode() + b"\n" for r in requests)
    ready, one, two, three = _driver(["serve"], stdin)
    assert ready["ready"] is True
    assert ready["pytest"] is True
    assert (one["id"], one["exit_code"]) == ("one", 0)
    assert (two["id"], two["exit_code"]) == ("two", 1)
    assert "assert -1 == 5" in two["stdout"]
    assert (three["id"], three["timed_out"], three["exit_code"]) == ("three", True, 137)


@pytest.mark.parametrize("argv", [["pytest"], ["python3", "-m", "pytest", "-x"]])
def test_pytest_commands_are_recognised(argv, monkeypatch):
    from sandbox.checks import driver

    monkeypatch.setattr(driver.shutil, "which", lambda name: sys.executable)
    assert driver._is_pytest(argv)
    assert not driver._is_pytest(["python3", "-c", "import pytest"])
