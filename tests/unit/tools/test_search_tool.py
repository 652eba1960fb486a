"""rg_search with ripgrep and with the Python fallback, on real temp repositories."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from safety.errors import ErrorType
from safety.validation import ValidationError
from tests.conftest import require_component
from tests.tool_context import tool_context
from tools import search_tool
from tools.base import ToolFailure, ToolLimits
from tools.search_tool import MAX_PER_FILE, RgSearch, escape_regex, ripgrep_argv
from tools.workspace import DiskWorkspace, OverlayWorkspace

HAVE_RG = shutil.which("rg") is not None


def require_ripgrep() -> None:
    require_component("ripgrep", HAVE_RG, "apt-get install ripgrep (see .ci/run)")


@pytest.fixture(params=["rg", "python"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with ripgrep (asserting the fallback is not used) and without it."""
    if request.param == "rg":
        if not HAVE_RG:
            require_ripgrep()

        def no_fallback(*args: Any, **kwargs: Any) -> Any:
            raise AssertionError("the Python fallback ran although ripgrep is installed")

        monkeypatch.setattr(search_tool, "python_search", no_fallback)
    else:
        monkeypatch.setattr(search_tool, "ripgrep_program", lambda: None)
    return str(request.param)


def search(
    root: Path,
    pattern: str,
    glob: str | None = None,
    *,
    limits: ToolLimits | None = None,
    docs: dict[str, tuple[str, int]] | None = None,
) -> str:
    workspace = DiskWorkspace(root) if docs is None else OverlayWorkspace(root, lambda: docs)
    tool = RgSearch(tool_context(workspace, limits=limits or ToolLimits()))
    return str(tool.forward(pattern, glob))


def test_happy_path_format(tmp_repo: Path, engine: str) -> None:
    out = search(tmp_repo, r"add\(")
    assert out.splitlines() == [
        "3 matches in 2 files for 'add\\\\(':",
        "pkg/calc.py:1: def add(a, b):",
        "tests/test_calc.py:4: def test_add():",
        "tests/test_calc.py:5:     assert add(2, 3) == 5",
    ]


def test_glob_limits_files(tmp_repo: Path, engine: str) -> None:
    (tmp_repo / "notes.md").write_text("add more tests\n")
    assert search(tmp_repo, "add", "*.md").splitlines()[1:] == ["notes.md:1: add more tests"]
    out = search(tmp_repo, "add", "pkg/*.py")
    assert out.splitlines()[1:] == ["pkg/calc.py:1: def add(a, b):"]
    out = search(tmp_repo, "add", "!*.py")
    assert out.splitlines()[1:] == ["notes.md:1: add more tests"]
    assert "in files matching '*.md'" in search(tmp_repo, "add", "*.md")


def test_empty_glob_means_all_files(tmp_repo: Path, engine: str) -> None:
    assert search(tmp_repo, "return", "") == search(tmp_repo, "return")


def test_no_matches_is_plain_text(tmp_repo: Path, engine: str) -> None:
    assert search(tmp_repo, "multiply") == "No matches for 'multiply'."
    assert search(tmp_repo, "multiply", "*.rs") == (
        "No matches for 'multiply' in files matching '*.rs'."
    )


def test_invalid_regex_is_a_clear_error(tmp_repo: Path, engine: str) -> None:
    with pytest.raises(ToolFailure) as info:
        search(tmp_repo, "add(a")
    failure = info.value
    assert failure.error_type == ErrorType.INVALID_ARGUMENT
    assert "Invalid regular expression" in failure.message
    assert 'rg_search(pattern="add\\(a")' in failure.recovery_suggestion
    assert search(tmp_repo, escape_regex("add(a")).startswith("1 match in 1 file")


def test_empty_pattern_and_bad_glob(tmp_repo: Path, engine: str) -> None:
    with pytest.raises(ToolFailure):
        search(tmp_repo, "")
    with pytest.raises(ValidationError) as info:
        search(tmp_repo, "add", "../*")
    assert info.value.error_type == ErrorType.INVALID_GLOB


def test_sensitive_files_are_never_shown(tmp_repo: Path, engine: str) -> None:
    (tmp_repo / ".env").write_text("API_TOKEN=hunter2\n")  # untracked and not ignored
    (tmp_repo / "prod.env").write_text("API_TOKEN=hunter2\n")
    (tmp_repo / "server.pem").write_text("API_TOKEN=hunter2\n")
    (tmp_repo / "config.py").write_text("API_TOKEN = None\n")
    out = search(tmp_repo, "API_TOKEN")
    assert out.splitlines()[1:] == ["config.py:1: API_TOKEN = None"]
    assert search(tmp_repo, "hunter2") == "No matches for 'hunter2'."
    with pytest.raises(ValidationError):
        search(tmp_repo, "TOKEN", "*.env")
    assert search(tmp_repo, "hunter", "*") == "No matches for 'hunter' in files matching '*'."


def test_copies_of_secrets_are_not_shown_and_code_named_like_configs_is(
    tmp_repo: Path, engine: str
) -> None:
    for name in (".env~", ".npmrc.bak", ".env.swp", "credentials.json.old"):
        (tmp_repo / name).write_text("API_TOKEN=hunter2\n")
    (tmp_repo / "kubeconfig.go").write_text("// hunter2 in code\n")
    # a template is searched (its values would be redacted like any token's: a comment here)
    (tmp_repo / ".env.local.example").write_text("# API_TOKEN: like hunter2-placeholder\n")
    out = search(tmp_repo, "hunter2").splitlines()[1:]
    assert sorted(out) == [
        ".env.local.example:1: # API_TOKEN: like hunter2-placeholder",
        "kubeconfig.go:1: // hunter2 in code",
    ]


def test_sensitive_open_document_is_not_searched(tmp_repo: Path, engine: str) -> None:
    out = search(tmp_repo, "hunter2", docs={".env": ("T=hunter2\n", 1)})
    assert out == "No matches for 'hunter2'."


def test_git_internals_are_not_searched(tmp_repo: Path, engine: str) -> None:
    assert search(tmp_repo, "repositoryformatversion") == (
        "No matches for 'repositoryformatversion'."
    )


def test_unsaved_buffers_replace_disk_text(tmp_repo: Path, engine: str) -> None:
    docs = {"pkg/calc.py": ("new text", 3), "pkg/fresh.py": ("def subtract(a, b): ...\n", 1)}
    out = search(tmp_repo, "new text|def ", docs=docs)
    lines = out.splitlines()[1:]
    assert "pkg/calc.py:1: new text" in lines
    assert "pkg/fresh.py:1: def subtract(a, b): ..." in lines
    assert "tests/test_calc.py:4: def test_add():" in lines
    assert not any("def add" in line for line in lines)
    assert lines == sorted(lines, key=lambda s: (s.split(":")[0], int(s.split(":")[1])))


def test_unsaved_buffer_respects_glob(tmp_repo: Path, engine: str) -> None:
    docs = {"pkg/calc.py": ("zebra\n", 3), "notes.md": ("zebra\n", 1)}
    out = search(tmp_repo, "zebra", "*.md", docs=docs)
    assert out.splitlines()[1:] == ["notes.md:1: zebra"]


def test_per_file_cap(tmp_repo: Path, engine: str) -> None:
    (tmp_repo / "many.txt").write_text("hit\n" * 50)
    out = search(tmp_repo, "hit")
    lines = out.splitlines()
    assert lines[0] == f"{MAX_PER_FILE} matches in 1 file for 'hit':"
    assert lines[MAX_PER_FILE] == f"many.txt:{MAX_PER_FILE}: hit"
    assert f"At most {MAX_PER_FILE} matches per file are listed: many.txt" in lines[-1]


def test_truncated_at_max_list_items(tmp_path: Path, engine: str) -> None:
    for i in range(12):
        (tmp_path / f"f{i:02}.txt").write_text("needle\nneedle\n")
    limits = ToolLimits(max_list_items=5)
    out = search(tmp_path, "needle", limits=limits)
    lines = out.splitlines()
    assert lines[0].endswith("for 'needle':")
    assert lines[1:6] == [
        "f00.txt:1: needle",
        "f00.txt:2: needle",
        "f01.txt:1: needle",
        "f01.txt:2: needle",
        "f02.txt:1: needle",
    ]
    assert "[truncated: showing 5 of 24 matches" in lines[6]


def test_overall_cap_stops_the_search(tmp_path: Path, engine: str) -> None:
    for i in range(20):
        (tmp_path / f"f{i:02}.txt").write_text("needle\n" * 10)
    limits = ToolLimits(max_list_items=3)
    out = search(tmp_path, "needle", limits=limits)
    assert out.startswith("at least 30 matches in 3 files for 'needle':")
    assert "showing 3 of 30 matches" in out
    assert "The search stopped after 30 matches." in out


def test_output_within_limits_with_long_lines(tmp_path: Path, engine: str) -> None:
    for i in range(40):
        (tmp_path / f"f{i:02}.txt").write_text("needle " + "x" * 2000 + "\n")
    limits = ToolLimits(max_output_chars=3000, max_output_lines=150)
    out = search(tmp_path, "needle", limits=limits)
    assert len(out) <= limits.max_output_chars
    assert "showing" in out


def test_python_only_regex_falls_back_in_rg_mode(
    tmp_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not HAVE_RG:
        require_ripgrep()
    calls: list[str] = []
    real = search_tool.python_search

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append("python")
        return real(*args, **kwargs)

    monkeypatch.setattr(search_tool, "python_search", spy)
    out = search(tmp_repo, r"(?<=def )add")
    assert out.splitlines()[1:] == ["pkg/calc.py:1: def add(a, b):"]
    assert calls == ["python"]


def test_fallback_skips_binary_and_large_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_tool, "ripgrep_program", lambda: None)
    (tmp_path / "blob.bin").write_bytes(b"needle\x00\x01")
    (tmp_path / "huge.txt").write_text("needle\n" + "x" * search_tool.MAX_FILE_BYTES)
    (tmp_path / "ok.txt").write_text("needle\n")
    assert search(tmp_path, "needle").splitlines()[1:] == ["ok.txt:1: needle"]


def test_rg_skips_binary_and_large_files(tmp_path: Path) -> None:
    if not HAVE_RG:
        require_ripgrep()
    (tmp_path / "blob.bin").write_bytes(b"needle\x00\x01")
    (tmp_path / "huge.txt").write_text("needle\n" + "x" * search_tool.MAX_FILE_BYTES)
    (tmp_path / "ok.txt").write_text("needle\n")
    assert search(tmp_path, "needle").splitlines()[1:] == ["ok.txt:1: needle"]


def test_ripgrep_argv_is_hardened() -> None:
    argv = ripgrep_argv("rg", "-e", "*.py")
    assert "--no-config" in argv
    assert argv[argv.index("-e") + 1] == "-e"  # the pattern is passed as a value, not a flag
    assert argv[-2:] == ["--", "."]
    assert argv[argv.index("-g") + 1] == "*.py"
    assert "!.env" in argv
    assert "!.git" in argv


def test_rg_timeout_keeps_partial_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not HAVE_RG:
        require_ripgrep()
    slow = tmp_path / "slow-rg"
    slow.write_text('#!/bin/sh\nprintf "./a.txt\\0001:needle\\n"\nexec sleep 30\n')
    slow.chmod(0o755)
    monkeypatch.setattr(search_tool, "ripgrep_program", lambda: str(slow))
    limits = ToolLimits(command_timeout_s=0.5)
    out = search(tmp_path, "needle", limits=limits)
    assert out.splitlines()[1] == "a.txt:1: needle"
    assert "timed out after 0.5s" in out


def test_rg_timeout_without_results_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow = tmp_path / "slow-rg"
    slow.write_text("#!/bin/sh\nexec sleep 30\n")
    slow.chmod(0o755)
    monkeypatch.setattr(search_tool, "ripgrep_program", lambda: str(slow))
    with pytest.raises(ToolFailure) as info:
        search(tmp_path, "needle", limits=ToolLimits(command_timeout_s=0.3))
    assert info.value.error_type == ErrorType.TIMEOUT
    assert "glob" in info.value.recovery_suggestion


def test_ripgrep_config_env_is_ignored(
    tmp_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not HAVE_RG:
        require_ripgrep()
    config = tmp_path / "rgrc"
    config.write_text("--files-without-match\n")
    monkeypatch.setenv("RIPGREP_CONFIG_PATH", str(config))
    assert search(tmp_repo, "def add").splitlines()[1:] == ["pkg/calc.py:1: def add(a, b):"]


def test_files_holding_a_private_key_or_hard_links_are_not_searched(
    tmp_repo: Path, tmp_path: Path, engine: str
) -> None:
    (tmp_repo / "notes.txt").write_text(
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowNEEDLE\n-----END RSA PRIVATE KEY-----\n"
    )
    (tmp_path / "elsewhere.txt").write_text("NEEDLE outside\n")
    os.link(tmp_path / "elsewhere.txt", tmp_repo / "twin.txt")
    (tmp_repo / "plain.txt").write_text("NEEDLE here\n")
    out = search(tmp_repo, "NEEDLE")
    assert "plain.txt" in out
    assert "notes.txt" not in out and "MIIEow" not in out and "twin.txt" not in out


def test_a_glob_that_matches_nothing_shows_the_matches_everywhere(
    tmp_repo: Path, engine: str
) -> None:
    # Qwen2.5-Coder-1.5B searched for TODO with glob="config.py"; the TODO was in report.py.
    (tmp_repo / "config.py").write_text("VERSION = 1\n")
    (tmp_repo / "report.py").write_text("# TODO: group by warehouse\n")
    out = search(tmp_repo, "TODO", "config.py")
    assert out.startswith("No matches for 'TODO' in files matching 'config.py'; in all files:")
    assert "report.py:1: # TODO: group by warehouse" in out
    assert search(tmp_repo, "NOWHERE", "*.py") == (
        "No matches for 'NOWHERE' in files matching '*.py'."
    )


TOKEN = "ghp_Zq8Lm2Xv7Tn4Kp1Rw9Ys3Hd6Fj0Gb5Nc8Vx2Qe"


def test_a_search_is_no_oracle_for_a_redacted_secret(tmp_repo: Path, engine: str) -> None:
    """A pattern that matches only inside a redacted token finds nothing (one call per
    character would rebuild it); the line is still found by what the model may see."""
    (tmp_repo / "settings_local.py").write_text(f'GITHUB = "{TOKEN}"\n')
    for probe in ("ghp_Z", "ghp_Zq8L", TOKEN[:-1], "Zq8Lm2"):
        assert search(tmp_repo, probe) == f"No matches for {probe!r}.", probe
    assert search(tmp_repo, "GITHUB").splitlines()[1:] == [
        'settings_local.py:1: GITHUB = "[REDACTED]"'
    ]
    docs = {"pkg/open.py": (f'T = "{TOKEN}"\n', 2)}
    assert search(tmp_repo, "ghp_Zq", docs=docs) == "No matches for 'ghp_Zq'."


def test_an_open_buffer_holding_a_private_key_is_not_searched(tmp_repo: Path, engine: str) -> None:
    """Buffers used to be filtered by name only: `read_file` refuses the file, and so must
    a search of its unsaved text (issue 28, finding 10)."""
    key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n"
    docs = {"deploy/notes.txt": (key + "-----END OPENSSH PRIVATE KEY-----\n", 1)}
    assert search(tmp_repo, "b3BlbnNz", docs=docs) == "No matches for 'b3BlbnNz'."
    assert search(tmp_repo, "PRIVATE", docs=docs) == "No matches for 'PRIVATE'."
