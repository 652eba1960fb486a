"""git_status, git_diff, git_log on real temp repositories (and a hostile one)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from safety.errors import ErrorType
from safety.validation import ValidationError
from tests.conftest import git_init
from tests.tool_context import make_tool as make
from tools.base import AgentTool, ToolFailure, ToolLimits
from tools.files import RepoInfo
from tools.git_tools import MAX_LOG_COUNT, GitDiff, GitLog, GitStatus
from tools.workspace import git_env, git_listed_files

GIT = shutil.which("git") or "git"
ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}


def git(repo: Path, *args: str) -> str:
    argv = [GIT, "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args]
    proc = subprocess.run(argv, cwd=repo, env=ENV, capture_output=True, text=True, check=True)
    return proc.stdout


def commit(repo: Path, message: str, *, author: str = "t") -> None:
    git(repo, "add", "-A")
    git(repo, "-c", f"user.name={author}", "commit", "-q", "-m", message)


# ---- git_status ----------------------------------------------------------------------------
def test_status_clean(tmp_repo: Path) -> None:
    out = make(GitStatus, tmp_repo).forward()
    assert out == "Branch: main\nWorking tree clean: no changed or untracked files."


def test_status_changes(tmp_repo: Path) -> None:
    (tmp_repo / "pkg" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    (tmp_repo / "notes.txt").write_text("n\n")
    (tmp_repo / "tests" / "test_calc.py").unlink()
    (tmp_repo / "staged.py").write_text("x = 1\n")
    git(tmp_repo, "add", "staged.py")
    git(tmp_repo, "mv", "pkg/__init__.py", "pkg/init_moved.py")
    lines = make(GitStatus, tmp_repo).forward().splitlines()
    assert lines[0] == "Branch: main"
    assert lines[1].startswith("5 entries (XY:")
    assert lines[2:] == [
        " M pkg/calc.py",
        "R  pkg/__init__.py -> pkg/init_moved.py",
        "A  staged.py",
        " D tests/test_calc.py",
        "?? notes.txt",
    ]


def test_status_hides_sensitive_paths(tmp_repo: Path) -> None:
    (tmp_repo / ".env").write_text("SECRET=1\n")
    (tmp_repo / "deploy.pem").write_text("KEY\n")
    (tmp_repo / "ok.txt").write_text("ok\n")
    out = make(GitStatus, tmp_repo).forward()
    assert ".env" not in out
    assert "deploy.pem" not in out
    assert "?? ok.txt" in out
    assert "(2 sensitive paths not shown.)" in out


def test_status_mentions_unsaved_buffers(tmp_repo: Path) -> None:
    out = make(GitStatus, tmp_repo, docs={"pkg/calc.py": ("new text", 3)}).forward()
    assert "Working tree clean" in out
    assert "unsaved changes not on disk (git does not see them): pkg/calc.py" in out


def test_status_truncates(tmp_repo: Path) -> None:
    for i in range(30):
        (tmp_repo / f"new{i:02}.txt").write_text("")
    out = make(GitStatus, tmp_repo, limits=ToolLimits(max_list_items=5)).forward()
    lines = out.splitlines()
    assert lines[2:7] == [f"?? new{i:02}.txt" for i in range(5)]
    assert "showing 5 of 30 entries" in lines[7]


def test_status_in_workspace_below_the_repo_root(tmp_repo: Path) -> None:
    (tmp_repo / "pkg" / "calc.py").write_text("changed\n")
    (tmp_repo / "tests" / "test_calc.py").write_text("changed\n")
    out = make(GitStatus, tmp_repo / "pkg").forward()
    assert out.splitlines()[2:] == [" M calc.py"]


def test_status_unborn_branch(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "trunk")
    (tmp_path / "a.txt").write_text("a\n")
    out = make(GitStatus, tmp_path).forward()
    assert "trunk" in out.splitlines()[0]
    assert "?? a.txt" in out


# ---- not a repository -----------------------------------------------------------------------
@pytest.mark.parametrize("cls", [GitStatus, GitDiff, GitLog])
def test_git_tools_outside_a_repository(tmp_path: Path, cls: type[AgentTool]) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    with pytest.raises(ToolFailure) as info:
        make(cls, tmp_path).forward()
    failure = info.value
    assert failure.error_type == ErrorType.INVALID_ARGUMENT
    assert "is not a git repository" in failure.message
    assert "read_file" in failure.recovery_suggestion
    assert set(failure.to_error(cls.name)) == {
        "error",
        "message",
        "tool",
        "context",
        "recovery_suggestion",
    }


# ---- git_diff ------------------------------------------------------------------------------
def test_diff_happy_path(tmp_repo: Path) -> None:
    (tmp_repo / "pkg" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    out = make(GitDiff, tmp_repo).forward()
    lines = out.splitlines()
    assert lines[0] == "1 file changed vs HEAD (disk state): pkg/calc.py"
    assert "diff --git a/pkg/calc.py b/pkg/calc.py" in lines
    assert "-    return a + b" in lines
    assert "+    return b + a" in lines


def test_diff_includes_staged_and_limits_to_path(tmp_repo: Path) -> None:
    (tmp_repo / "pkg" / "calc.py").write_text("changed\n")
    git(tmp_repo, "add", "pkg/calc.py")
    (tmp_repo / "tests" / "test_calc.py").write_text("changed too\n")
    full = make(GitDiff, tmp_repo).forward()
    assert full.startswith("2 files changed vs HEAD (disk state): pkg/calc.py, tests/test_calc.py")
    only = make(GitDiff, tmp_repo).forward("pkg/calc.py")
    assert only.startswith("1 file changed vs HEAD under 'pkg/calc.py'")
    assert "test_calc" not in only
    folder = make(GitDiff, tmp_repo).forward("./tests/")
    assert "tests/test_calc.py" in folder
    assert "pkg/calc.py" not in folder


def test_diff_path_is_literal_not_a_pathspec_glob(tmp_repo: Path) -> None:
    (tmp_repo / "pkg" / "calc.py").write_text("changed\n")
    with pytest.raises(ToolFailure, match="No file or folder 'pkg/\\*'"):
        make(GitDiff, tmp_repo).forward("pkg/*")


def test_diff_no_changes(tmp_repo: Path) -> None:
    (tmp_repo / "untracked.txt").write_text("u\n")
    out = make(GitDiff, tmp_repo).forward()
    assert out.startswith("No changes to tracked files compared to HEAD.")
    assert "git_status" in out


def test_diff_deleted_file_path(tmp_repo: Path) -> None:
    (tmp_repo / "pkg" / "calc.py").unlink()
    out = make(GitDiff, tmp_repo).forward("pkg/calc.py")
    assert "deleted file mode" in out


def test_diff_missing_path_suggests_closest(tmp_repo: Path) -> None:
    with pytest.raises(ToolFailure) as info:
        make(GitDiff, tmp_repo).forward("pkg/calcc.py")
    assert info.value.error_type == ErrorType.FILE_NOT_FOUND
    assert "pkg/calc.py" in info.value.recovery_suggestion


@pytest.mark.parametrize("path", ["../x", ".env", "/etc/passwd", ".git/config"])
def test_diff_refuses_unsafe_paths(tmp_repo: Path, path: str) -> None:
    with pytest.raises(ValidationError):
        make(GitDiff, tmp_repo).forward(path)


def test_diff_never_shows_tracked_sensitive_files(tmp_repo: Path) -> None:
    (tmp_repo / ".env").write_text("TOKEN=old\n")
    commit(tmp_repo, "add env")
    (tmp_repo / ".env").write_text("TOKEN=hunter2\n")
    (tmp_repo / "pkg" / "calc.py").write_text("changed\n")
    out = make(GitDiff, tmp_repo).forward()
    assert "hunter2" not in out
    assert "TOKEN" not in out
    assert "(1 sensitive file not shown.)" in out
    assert "pkg/calc.py" in out


def test_diff_truncated_with_per_file_hint(tmp_repo: Path) -> None:
    (tmp_repo / "pkg" / "calc.py").write_text("".join(f"value_{i} = {i}\n" for i in range(500)))
    (tmp_repo / "tests" / "test_calc.py").write_text("changed\n")
    limits = ToolLimits(max_output_chars=1500, max_output_lines=60)
    out = make(GitDiff, tmp_repo, limits=limits).forward()
    assert len(out) <= limits.max_output_chars
    assert len(out.splitlines()) <= limits.max_output_lines
    note = out.splitlines()[-1]
    assert note.startswith("[truncated: ")
    assert "(rest of pkg/calc.py and 1 more file)" in note
    assert 'Next file: git_diff(path="tests/test_calc.py")' in note


def test_diff_truncated_in_one_file_points_at_the_next_hunk(tmp_repo: Path) -> None:
    original = "".join(f"line {i}\n" for i in range(1, 301))
    (tmp_repo / "big.txt").write_text(original)
    commit(tmp_repo, "big")
    changed = original.replace("line 5\n", "LINE FIVE\n").replace("line 250\n", "LINE 250\n")
    (tmp_repo / "big.txt").write_text(changed)
    limits = ToolLimits(max_output_chars=3000, max_output_lines=14)
    out = make(GitDiff, tmp_repo, limits=limits).forward("big.txt")
    assert len(out.splitlines()) <= limits.max_output_lines
    assert "+LINE FIVE" in out
    assert "LINE 250" not in out
    note = out.splitlines()[-1]
    assert "(rest of big.txt)" in note
    assert 'read_file(path="big.txt", start_line=247, end_line=253)' in note


def test_diff_without_commits(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "a.txt").write_text("a\n")
    assert "no commits yet" in make(GitDiff, tmp_path).forward()


def test_diff_notes_unsaved_buffers(tmp_repo: Path) -> None:
    out = make(GitDiff, tmp_repo, docs={"pkg/calc.py": ("new text", 3)}).forward()
    assert "No changes to tracked files" in out
    assert "git does not see them" in out


# ---- git_log -------------------------------------------------------------------------------
@pytest.fixture
def history(tmp_repo: Path) -> Path:
    for i in range(1, 13):
        (tmp_repo / "log.txt").write_text(f"{i}\n")
        commit(tmp_repo, f"change {i}", author="Ada Lovelace")
    return tmp_repo


def test_log_default_ten(history: Path) -> None:
    lines = make(GitLog, history).forward().splitlines()
    assert lines[0] == "10 commits (newest first):"
    assert len(lines) == 11
    sha, date, rest = lines[1].split(" ", 2)
    assert len(sha) >= 7
    assert len(date) == 10
    assert date[4] == "-"
    assert rest == "Ada Lovelace: change 12"
    assert lines[10].endswith("Ada Lovelace: change 3")


def test_log_n_and_clamp(history: Path) -> None:
    assert len(make(GitLog, history).forward(n=2).splitlines()) == 3
    out = make(GitLog, history).forward(n=500)
    assert out.splitlines()[0] == "13 commits (newest first):"
    assert out.splitlines()[-2].endswith("t: init")
    assert f"n=500 is above the maximum {MAX_LOG_COUNT}" in out.splitlines()[-1]


@pytest.mark.parametrize("n", [0, -3, True, "5"])
def test_log_bad_n(history: Path, n: object) -> None:
    with pytest.raises(ToolFailure) as info:
        make(GitLog, history).forward(n=n)
    assert info.value.error_type == ErrorType.INVALID_ARGUMENT
    assert "git_log(n=10)" in info.value.recovery_suggestion


def test_log_truncated_within_limits(history: Path) -> None:
    limits = ToolLimits(max_output_chars=400, max_output_lines=150)
    out = make(GitLog, history).forward(n=12)
    small = make(GitLog, history, limits=limits).forward(n=12)
    assert len(small) <= limits.max_output_chars
    assert "[truncated: showing" in small
    assert small.splitlines()[1] == out.splitlines()[1]


def test_log_without_commits(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    assert make(GitLog, tmp_path).forward() == "No commits yet."


# ---- repository-configured helpers never run ------------------------------------------------
HELPERS = ("pager", "extdiff", "textconv", "fsmonitor", "clean", "smudge", "process", "hook", "gpg")


@pytest.fixture
def hostile_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A repo whose own config and attributes name helper programs that leave markers."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "f.txt").write_text("one\n")
    git_init(repo)
    markers, bin_dir, hooks = tmp_path / "markers", tmp_path / "bin", tmp_path / "hooks"
    for folder in (markers, bin_dir, hooks):
        folder.mkdir()
    for name in HELPERS:
        script = bin_dir / name
        script.write_text(f"#!/bin/sh\ntouch '{markers / name}'\ncat\n")
        script.chmod(0o755)
    shutil.copy(bin_dir / "hook", hooks / "post-index-change")
    shutil.copy(bin_dir / "hook", repo / ".git" / "hooks" / "post-index-change")
    settings = {
        "core.pager": bin_dir / "pager",
        "pager.status": bin_dir / "pager",
        "diff.external": bin_dir / "extdiff",
        "core.fsmonitor": bin_dir / "fsmonitor",
        "core.hooksPath": hooks,
        "filter.evil.clean": bin_dir / "clean",
        "filter.evil.smudge": bin_dir / "smudge",
        "filter.Odd.Name.process": bin_dir / "process",
        "filter.evil.required": "true",
        "diff.evil.textconv": bin_dir / "textconv",
        "diff.evil.command": bin_dir / "extdiff",
        "gpg.program": bin_dir / "gpg",
        "log.showSignature": "true",
    }
    for key, value in settings.items():
        git(repo, "config", key, str(value))
    (repo / ".gitattributes").write_text("*.txt filter=evil diff=evil\n*.md filter=Odd.Name\n")
    (repo / "f.txt").write_text("two\n")
    (repo / "g.md").write_text("md\n")
    os.utime(repo / "f.txt", (1_000_000_000, 1_000_000_000))
    return repo, markers


def test_plain_git_would_run_the_helpers(hostile_repo: tuple[Path, Path]) -> None:
    """Control: the hostile config is live, so the next test means something."""
    repo, markers = hostile_repo
    subprocess.run([GIT, "diff", "HEAD"], cwd=repo, env=ENV, capture_output=True)
    subprocess.run([GIT, "status"], cwd=repo, env=ENV, capture_output=True)
    assert {"extdiff", "clean", "fsmonitor"} <= {p.name for p in markers.iterdir()}


def test_git_tools_never_run_repository_helpers(hostile_repo: tuple[Path, Path]) -> None:
    repo, markers = hostile_repo
    outputs = [
        make(GitStatus, repo).forward(),
        make(GitDiff, repo).forward(),
        make(GitDiff, repo).forward("f.txt"),
        make(GitLog, repo).forward(),
        make(RepoInfo, repo).forward(),
    ]
    assert sorted(p.name for p in markers.iterdir()) == []
    assert " M f.txt" in outputs[0]
    assert "+two" in outputs[1]
    assert "t: init" in outputs[3]


def test_listing_files_runs_no_repository_helper(hostile_repo: tuple[Path, Path]) -> None:
    repo, markers = hostile_repo
    (repo / "new.txt").write_text("untracked\n")
    assert "new.txt" in (git_listed_files(repo) or [])
    assert sorted(p.name for p in markers.iterdir()) == []


def test_git_env_for_a_repository_blanks_every_filter_driver(
    hostile_repo: tuple[Path, Path],
) -> None:
    repo, _markers = hostile_repo
    env = git_env(repo, 10)
    pairs = {
        env[f"GIT_CONFIG_KEY_{i}"]: env[f"GIT_CONFIG_VALUE_{i}"]
        for i in range(int(env["GIT_CONFIG_COUNT"]))
    }
    assert pairs["core.hooksPath"] == os.devnull
    for driver in ("evil", "Odd.Name"):
        for key in ("clean", "smudge", "process"):
            assert pairs[f"filter.{driver}.{key}"] == ""
        assert pairs[f"filter.{driver}.required"] == "false"
