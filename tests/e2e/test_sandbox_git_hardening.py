"""git inside the sandbox gets the hardened configuration (issue 16, class 7): a
repository's embedded bare repository or its own config cannot make git run a program."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sandbox import open_sandbox
from sandbox.config import SandboxConfig
from tests.conftest import git_init

pytestmark = pytest.mark.docker

PAYLOAD = "#!/bin/sh\necho ran >> /tmp/home/ran\n"
PROBE = (
    "cd inner.git && git status >/dev/null 2>&1; cd .. ; git diff >/dev/null 2>&1; "
    "git log -p -1 >/dev/null 2>&1; git diff --stat; "
    "if [ -e /tmp/home/ran ]; then echo PAYLOAD-RAN; else echo CLEAN; fi"
)

# (the view's .git is not the repository's: sandbox/docker/git_view.py; the control puts the
# repository's diff.external into it, as git would have read it from the repository's)
UNHARDENED = (
    "git config diff.external ./payload.sh && "
    "env -u GIT_CONFIG_COUNT git -c safe.directory='*' diff >/dev/null 2>&1; "
    "if [ -e /tmp/home/ran ]; then echo PAYLOAD-RAN; else echo CLEAN; fi"
)


def attack_repo(root: Path) -> Path:
    git = shutil.which("git") or "git"
    root.mkdir()
    (root / "f.txt").write_text("one\n")
    (root / "payload.sh").write_text(PAYLOAD)
    (root / "payload.sh").chmod(0o755)
    git_init(root)
    (root / "f.txt").write_text("two\n")
    bare = root / "inner.git"
    subprocess.run([git, "init", "-q", "--bare", str(bare)], check=True)
    for key in ("core.fsmonitor", "diff.external", "core.pager"):
        subprocess.run(
            [git, "config", "-f", str(bare / "config"), key, "/workspace/payload.sh"], check=True
        )
    subprocess.run(
        [git, "config", "-f", str(root / ".git" / "config"), "diff.external", "./payload.sh"],
        check=True,
    )
    return root


def test_git_in_the_sandbox_runs_no_program_of_the_repository(tmp_path, sandbox_image) -> None:
    repo = attack_repo(tmp_path / "repo")
    with open_sandbox(repo, SandboxConfig(backend="docker", timeout_s=30)) as box:
        result = box.run(["sh", "-c", PROBE], timeout_s=30)
        # The control: without the hardened configuration the same repository runs its
        # program, so the check above can fail.
        control = box.run(["sh", "-c", UNHARDENED], timeout_s=30)
    assert "CLEAN" in result.stdout, result.stdout + result.stderr
    assert "f.txt | 2 +-" in result.stdout  # git itself still works
    assert "PAYLOAD-RAN" in control.stdout, control.stdout + control.stderr
