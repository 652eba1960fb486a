"""LocalSandbox: a throwaway copy on the host, loudly not isolation, every command approved,
a scrubbed environment and a fresh temporary HOME."""

from __future__ import annotations

import logging
import sys

import pytest

from lsp_agent.testing.calc_repo import BROKEN_CALC_DIFF
from sandbox.config import SandboxConfig
from sandbox.local_backend import LocalSandbox, host_command

DIFF = BROKEN_CALC_DIFF
CHECK = [sys.executable, "-c", "from pkg.calc import add; assert add(2, 3) == 5"]


class Approver:
    """Answers every host-command question with `answer` and keeps the questions."""

    def __init__(self, answer: bool = True) -> None:
        self.answer = answer
        self.asked: list[tuple[list[str], str]] = []

    def __call__(self, argv, question: str) -> bool:
        self.asked.append((list(argv), question))
        return self.answer


def local(repo, config=None, answer: bool = True) -> LocalSandbox:
    return LocalSandbox(repo, config or SandboxConfig(), Approver(answer))


def test_warns_loudly_that_it_is_not_isolation(tmp_repo, caplog):
    with caplog.at_level(logging.WARNING), LocalSandbox(tmp_repo, SandboxConfig()):
        pass
    assert any("WITHOUT ISOLATION" in r.getMessage() for r in caplog.records)
    assert any("lsp-agent sandbox build" in r.getMessage() for r in caplog.records)


def test_patch_is_checked_in_a_copy_and_the_copy_is_removed(tmp_repo):
    original = (tmp_repo / "pkg" / "calc.py").read_text()
    with local(tmp_repo) as box:
        result = box.check_patch(DIFF, CHECK)
        scratch = box._scratch
        assert scratch is not None
        assert scratch.exists()
    assert (result.applies, result.check_passed, result.backend) == (True, False, "local")
    assert (tmp_repo / "pkg" / "calc.py").read_text() == original
    assert not scratch.exists()


def test_environment_carries_no_secrets(tmp_repo, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    with local(tmp_repo) as box:
        result = box.run(["env"])
    assert result.exit_code == 0
    assert "sk-secret" not in result.stdout
    assert "PATH=" in result.stdout


def test_runs_in_a_copy_with_a_timeout(tmp_repo):
    with local(tmp_repo, SandboxConfig(timeout_s=1)) as box:
        wrote = box.run(["sh", "-c", "echo changed > pkg/calc.py; pwd"])
        looped = box.run(["sh", "-c", "while :; do :; done"])
    assert wrote.exit_code == 0
    assert wrote.stdout.strip() != str(tmp_repo)
    assert (tmp_repo / "pkg" / "calc.py").read_text().startswith("def add")
    assert looped.timed_out is True


@pytest.mark.parametrize("name", ["python", "python3"])
def test_python_falls_back_to_this_interpreter(name, monkeypatch):
    import sandbox.local_backend as local

    monkeypatch.setattr(local.shutil, "which", lambda _name, path=None: None)
    assert host_command([name, "-m", "pytest"]) == [sys.executable, "-m", "pytest"]
    assert host_command(["pytest"]) == ["pytest"]


@pytest.mark.parametrize("approver", [Approver(answer=False), None], ids=["rejected", "no one"])
def test_nothing_runs_on_the_host_without_a_yes(tmp_repo, tmp_path, approver):
    marker = tmp_path / "ran"
    with LocalSandbox(tmp_repo, SandboxConfig(), approver) as box:
        run = box.run(["touch", str(marker)])
        check = box.check_patch(DIFF, ["touch", str(marker)])
    assert not marker.exists()
    assert run.available is False and "not run on this machine" in run.stderr
    assert (check.applies, check.check_status) == (True, "unavailable")
    assert "not run on this machine" in check.output
    if approver is not None:
        commands = [argv for argv, _ in approver.asked]
        assert commands == [["touch", str(marker)]] * 2


def test_the_question_says_the_command_runs_unsandboxed(tmp_repo):
    approver = Approver()
    with LocalSandbox(tmp_repo, SandboxConfig(), approver) as box:
        assert box.run(["true"]).ok
    ((argv, question),) = approver.asked
    assert argv == ["true"]
    assert "YOUR MACHINE, NOT in a sandbox" in question
    assert "`true`" in question


def test_each_job_gets_a_fresh_temporary_home(tmp_repo, monkeypatch):
    import os

    monkeypatch.setenv("HOME", os.path.expanduser("~"))
    script = "echo $HOME; echo $TMPDIR; ls -A $HOME; touch $HOME/.planted $TMPDIR/planted"
    with local(tmp_repo) as box:
        first = box.run(["sh", "-c", script])
        second = box.run(["sh", "-c", script])
    home, tmpdir = first.stdout.split()[:2]
    assert home != os.path.expanduser("~") and "lsp-agent-sandbox-" in home
    assert "lsp-agent-sandbox-" in tmpdir
    assert second.stdout.split() == [home, tmpdir]  # the planted files are gone
    assert not os.path.exists(home)  # removed with the sandbox
