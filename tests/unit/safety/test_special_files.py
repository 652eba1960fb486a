"""Named pipes in a repository are never waited on (issue 28, low): every host-side reader
of repository files refuses them or passes them by, at once."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from safety.validation import NotRegularFile, file_problem, read_regular


def within(seconds: float, call: Callable[[], Any]) -> Any:
    """`call()`, failing the test (not hanging it) when it blocks: a daemon thread runs it."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"blocked for more than {seconds} s"
    if "error" in box:
        raise box["error"]
    return box.get("value")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text("x = 1\n")
    for name in ("server.pem", "package.json", "notes.txt"):
        os.mkfifo(root / name)
    return root


def test_read_regular_refuses_a_pipe_and_reads_a_file(repo: Path) -> None:
    with pytest.raises(NotRegularFile, match="named pipe"):
        within(5, lambda: read_regular(repo / "notes.txt"))
    assert read_regular(repo / "app.py") == b"x = 1\n"
    assert read_regular(repo / "app.py", 3) == b"x ="
    assert within(5, lambda: file_problem(repo / "notes.txt")) is None


def test_the_sandboxs_readers_pass_pipes_by(repo: Path) -> None:
    from sandbox.checks.baseline import TreeDigest
    from sandbox.docker.repo_secrets import scan
    from sandbox.project import node_test_script
    from sandbox.project_envs.node_deps import read_json

    found = within(10, lambda: scan(repo))
    assert "server.pem" in found.secrets  # unreadable: hidden rather than guessed
    assert within(10, lambda: TreeDigest(repo, ()).digest())
    assert within(10, lambda: read_json(repo / "package.json")) is None
    assert within(10, lambda: node_test_script(repo)) is None
