"""LocalSandbox: a throwaway copy on the host, loudly not isolation, minimal environment."""

from __future__ import annotations

import logging
import sys

import pytest

from sandbox.config import SandboxConfig
from sandbox.local_backend import LocalSandbox, host_command

DIFF = """\
--- a/pkg/calc.py
+++ b/pkg/calc.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a + b
+    return a - b
"""
CHECK = [sys.executable, "-c", "from pkg.calc import add; assert add(2, 3) == 5"]


def test_warns_loudly_that_it_is_not_isolation(tmp_repo, caplog):
    with caplog.at_level(logging.WARNING), LocalSandbox(tmp_repo, SandboxConfig()):
        pass
    assert any("WITHOUT ISOLATION" in r.getMessage() for r in caplog.records)
    assert any("lsp-agent sandbox build" in r.getMessage() for r in caplog.records)


def test_patch_is_checked_in_a_copy_and_the_copy_is_removed(tmp_repo):
    original = (tmp_repo / "pkg" / "calc.py").read_text()
    with LocalSandbox(tmp_repo, SandboxConfig()) as box:
        result = box.check_patch(DIFF, CHECK)
        scratch = box._scratch
        assert scratch is not None
        assert scratch.exists()
    assert (result.applies, result.check_passed, result.backend) == (True, False, "local")
    assert (tmp_repo / "pkg" / "calc.py").read_text() == original
    assert not scratch.exists()


def test_environment_carries_no_secrets(tmp_repo, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    with LocalSandbox(tmp_repo, SandboxConfig()) as box:
        result = box.run(["env"])
    assert result.exit_code == 0
    assert "sk-secret" not in result.stdout
    assert "PATH=" in result.stdout


def test_runs_in_a_copy_with_a_timeout(tmp_repo):
    with LocalSandbox(tmp_repo, SandboxConfig(timeout_s=1)) as box:
        wrote = box.run(["sh", "-c", "echo changed > pkg/calc.py; pwd"])
        looped = box.run(["sh", "-c", "while :; do :; done"])
    assert wrote.exit_code == 0
    assert wrote.stdout.strip() != str(tmp_repo)
    assert (tmp_repo / "pkg" / "calc.py").read_text().startswith("def add")
    assert looped.timed_out is True


@pytest.mark.parametrize("name", ["python", "python3"])
def test_python_falls_back_to_this_interpreter(name, monkeypatch):
    import sandbox.local_backend as local

    monkeypatch.setattr(local.shutil, "which", lambda _: None)
    assert host_command([name, "-m", "pytest"]) == [sys.executable, "-m", "pytest"]
    assert host_command(["pytest"]) == ["pytest"]
