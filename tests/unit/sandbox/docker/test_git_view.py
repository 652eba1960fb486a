"""The `.git` a sandbox view gets: HEAD alone, without secrets (the real engine: tests/e2e)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from sandbox.docker import git_view
from sandbox.docker.git_view import build_git_view
from tests.conftest import git_init

TOKEN = "ghp_Zq8Lm2Xv7Tn4Kp1Rw9Ys3Hd6Fj0Gb5Nc8Vx2Qe"
USER = (os.getuid(), os.getgid())


def git(repo: Path, *argv: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@x.invalid", *argv],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "lsp-agent" / "git-views"


def secret_repo(root: Path) -> Path:
    root.mkdir()
    (root / "app.py").write_text("print('hi')\n")
    (root / ".env").write_text(f"TOKEN={TOKEN}\n")
    (root / "old.txt").write_text(f"once {TOKEN}\n")
    git_init(root)
    (root / "old.txt").unlink()
    git(root, "commit", "-qam", "two")
    git(root, "tag", "v1")
    git(root, "remote", "add", "origin", f"https://bot:{TOKEN}@git.example.invalid/x.git")
    return root


def every_object(view: Path) -> str:
    done = subprocess.run(
        ["git", f"--git-dir={view}", "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True,
        check=True,
    )
    return done.stdout.decode("latin-1")


def test_the_view_holds_head_alone_without_secrets(tmp_path: Path) -> None:
    repo = secret_repo(tmp_path / "repo")
    view = build_git_view(repo, tmp_path / "scratch", USER)
    assert view is not None and view.name == ".git"
    assert TOKEN not in every_object(view)
    assert "print('hi')" in every_object(view)
    assert git(repo, "rev-parse", "HEAD") == git(repo, f"--git-dir={view}", "rev-parse", "HEAD")
    assert git(repo, f"--git-dir={view}", "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert git(repo, f"--git-dir={view}", "tag") == ""  # no other ref
    assert git(repo, f"--git-dir={view}", "log", "--oneline").count("\n") == 1
    remote = git(repo, f"--git-dir={view}", "remote", "-v")
    assert "git.example.invalid/x.git" in remote and TOKEN not in remote
    staged = git(repo, f"--git-dir={view}", "ls-files", "-s", ".env").split()
    assert staged[1] == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # the empty file


def test_a_view_is_kept_by_head_and_made_anew_when_head_moves(tmp_path: Path, cache: Path):
    repo = secret_repo(tmp_path / "repo")
    first = build_git_view(repo, tmp_path / "a", USER)
    again = build_git_view(repo, tmp_path / "b", USER)
    assert first == again and first is not None and first.is_relative_to(cache)
    (repo / "app.py").write_text("print('moved')\n")
    git(repo, "commit", "-qam", "three")
    moved = build_git_view(repo, tmp_path / "c", USER)
    assert moved != first and moved is not None and "moved" in every_object(moved)


def test_no_commits_gives_an_empty_repository_and_no_git_dir_gives_none(tmp_path: Path):
    empty = tmp_path / "empty"
    empty.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "trunk", str(empty)], check=True)
    view = build_git_view(empty, tmp_path / "s1", USER)
    assert view is not None
    assert git(empty, f"--git-dir={view}", "symbolic-ref", "HEAD").strip() == "refs/heads/trunk"
    plain = tmp_path / "plain"
    plain.mkdir()
    assert build_git_view(plain, tmp_path / "s2", USER) is None


def test_a_repository_git_cannot_read_gives_an_empty_git_dir(tmp_path: Path, monkeypatch):
    repo = secret_repo(tmp_path / "repo")
    monkeypatch.setattr(git_view, "_tree_objects", lambda *a: (_ for _ in ()).throw(OSError("x")))
    view = build_git_view(repo, tmp_path / "scratch", USER)
    assert view is not None and view.is_dir() and list(view.iterdir()) == []
