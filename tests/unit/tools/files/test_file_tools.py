"""repo_info, list_files, read_file, read_file_snippet on real temp repositories."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from safety.errors import ErrorType
from safety.validation import ValidationError
from tests.conftest import git_init
from tests.repo_samples import UNSAFE_PATHS
from tests.tool_context import make_tool as make
from tests.tool_context import tool_context
from tools.base import AgentTool, ToolFailure, ToolLimits
from tools.files import (
    ListFiles,
    ReadFile,
    ReadFileSnippet,
    RepoInfo,
    compile_glob,
    merge_blocks,
)
from tools.git_tools import GitDiff, GitLog, GitStatus
from tools.search_tool import RgSearch
from tools.workspace import DiskWorkspace

ALL_TOOLS: dict[str, type[AgentTool]] = {
    "repo_info": RepoInfo,
    "list_files": ListFiles,
    "rg_search": RgSearch,
    "read_file": ReadFile,
    "read_file_snippet": ReadFileSnippet,
    "git_status": GitStatus,
    "git_diff": GitDiff,
    "git_log": GitLog,
}


def numbered(n: int) -> str:
    return "".join(f"line {i}\n" for i in range(1, n + 1))


def within_limits(text: str, limits: ToolLimits) -> bool:
    return len(text) <= limits.max_output_chars and len(text.splitlines()) <= (
        limits.max_output_lines
    )


# ---- metadata ------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "cls"), list(ALL_TOOLS.items()))
def test_tools_pass_smolagents_validation(tmp_repo: Path, name: str, cls: type[AgentTool]) -> None:
    tool = make(cls, tmp_repo)  # smolagents validates name, inputs and forward's signature here
    assert tool.name == name
    assert tool.output_type == "string"
    assert not getattr(tool, "skip_forward_signature_validation", False)
    for spec in tool.inputs.values():
        assert set(spec) <= {"type", "description", "nullable"}
        assert spec["description"]


@pytest.mark.parametrize("cls", list(ALL_TOOLS.values()))
def test_descriptions_are_short_and_literal(cls: type[AgentTool]) -> None:
    text = cls.description
    assert len(text) < 200, text
    assert not re.search(r"\w\(\w*=|`|e\.g\.|for example|>>>", text), text
    for spec in cls.inputs.values():
        assert len(str(spec["description"])) < 120


def test_optional_inputs_are_nullable_with_none_defaults() -> None:
    import inspect

    for cls in ALL_TOOLS.values():
        params = inspect.signature(cls.forward).parameters
        for key, spec in cls.inputs.items():
            assert (params[key].default is None) == bool(spec.get("nullable")), (cls.name, key)


def test_path_inputs_declared() -> None:
    assert ReadFile.path_inputs == ("path",)
    assert ReadFileSnippet.path_inputs == ("path",)
    assert GitDiff.path_inputs == ("path",)
    assert ListFiles.path_inputs == ()


# ---- repo_info -----------------------------------------------------------------------------
def test_repo_info_git_repo(tmp_repo: Path) -> None:
    (tmp_repo / "README.md").write_text("hello\n")
    out = make(RepoInfo, tmp_repo).forward()
    assert "Workspace: repo" in out
    assert "Git: branch main, HEAD " in out
    assert "'init'" in out
    assert "Files: 4" in out
    assert "Top level: pkg/ (2), tests/ (1), README.md" in out
    assert ".py 3" in out
    assert ".md 1" in out
    assert "Test command: python -m pytest -q" in out
    assert "unsaved changes: 0" in out


def test_repo_info_non_git_and_open_documents(tmp_path: Path) -> None:
    (tmp_path / "main.go").write_text("package main\n")
    (tmp_path / "go.mod").write_text("module x\n")
    (tmp_path / ".env").write_text("TOKEN=1\n")
    docs = {"main.go": ("package main // edited\n", 2), "new.go": ("package main\n", 1)}
    out = make(RepoInfo, tmp_path, docs=docs).forward()
    assert "Git: not a git repository" in out
    assert "Test command: go test ./..." in out
    assert "unsaved changes: 2: main.go, new.go" in out
    assert ".env" not in out


def test_repo_info_saved_open_document_is_not_unsaved(tmp_repo: Path) -> None:
    text = (tmp_repo / "pkg" / "calc.py").read_text()
    out = make(RepoInfo, tmp_repo, docs={"pkg/calc.py": (text, 1)}).forward()
    assert "unsaved changes: 0" in out


# ---- list_files ----------------------------------------------------------------------------
@pytest.fixture
def tree(tmp_repo: Path) -> Path:
    (tmp_repo / "docs").mkdir()
    (tmp_repo / "docs" / "guide.md").write_text("# guide\n")
    (tmp_repo / "pkg" / "sub").mkdir()
    (tmp_repo / "pkg" / "sub" / "deep.py").write_text("x = 1\n")
    (tmp_repo / "setup.cfg").write_text("[x]\n")
    (tmp_repo / ".env").write_text("SECRET=1\n")  # untracked, not ignored
    (tmp_repo / "id_rsa").write_text("KEY\n")
    return tmp_repo


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (
            "*.py",
            ["pkg/__init__.py", "pkg/calc.py", "pkg/sub/deep.py", "tests/test_calc.py"],
        ),
        ("**/*.py", ["pkg/__init__.py", "pkg/calc.py", "pkg/sub/deep.py", "tests/test_calc.py"]),
        ("pkg/*.py", ["pkg/__init__.py", "pkg/calc.py"]),
        ("pkg/**/*.py", ["pkg/__init__.py", "pkg/calc.py", "pkg/sub/deep.py"]),
        ("test_*.py", ["tests/test_calc.py"]),
        ("*.{md,cfg}", ["docs/guide.md", "setup.cfg"]),
        ("pkg", ["pkg/__init__.py", "pkg/calc.py", "pkg/sub/deep.py"]),
        ("docs/", ["docs/guide.md"]),
        ("calc.py", ["pkg/calc.py"]),
    ],
)
def test_list_files_globs(tree: Path, pattern: str, expected: list[str]) -> None:
    out = make(ListFiles, tree).forward(pattern)
    lines = out.splitlines()
    assert lines[0].startswith(f"{len(expected)} file")
    assert lines[1:] == expected


def test_list_files_never_lists_sensitive_files(tree: Path) -> None:
    for pattern in ("*", "**", "**/*", "id_*"):
        out = make(ListFiles, tree).forward(pattern)
        assert ".env" not in out
        assert "id_rsa" not in out
    assert "setup.cfg" in make(ListFiles, tree).forward("*")


def test_list_files_untracked_env_in_non_git_dir(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("")
    (tmp_path / ".env").write_text("X=1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "prod.env").write_text("X=1\n")
    out = make(ListFiles, tmp_path).forward("*")
    assert out.splitlines() == ["1 file match '*':", "a.py"]


@pytest.mark.parametrize("pattern", ["../*", "/etc/*", "~/x", ".env", "", "a\\b"])
def test_list_files_refuses_bad_globs(tree: Path, pattern: str) -> None:
    with pytest.raises(ValidationError) as info:
        make(ListFiles, tree).forward(pattern)
    assert info.value.error_type == ErrorType.INVALID_GLOB
    assert info.value.recovery_suggestion


def test_list_files_no_match_is_plain(tree: Path) -> None:
    out = make(ListFiles, tree).forward("*.rs")
    assert out.startswith("No files match '*.rs'")
    assert 'list_files(pattern="**/*")' in out


def test_list_files_truncates_with_note(tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"f{i:02}.txt").write_text("")
    limits = ToolLimits(max_list_items=10)
    out = make(ListFiles, tmp_path, limits=limits).forward("*.txt")
    lines = out.splitlines()
    assert lines[0] == "30 files match '*.txt':"
    assert lines[1:11] == [f"f{i:02}.txt" for i in range(10)]
    assert "showing 10 of 30 files" in lines[-1]
    assert len(lines) == 12


def test_list_files_output_stays_within_char_limit(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60)
    deep.mkdir()
    for i in range(100):
        (deep / f"file_with_a_long_name_{i:03}.py").write_text("")
    limits = ToolLimits(max_output_chars=1000, max_list_items=100)
    out = make(ListFiles, tmp_path, limits=limits).forward("*.py")
    assert within_limits(out, limits)
    assert "showing" in out.splitlines()[-1]


def test_list_files_includes_unsaved_new_document(tmp_repo: Path) -> None:
    out = make(ListFiles, tmp_repo, docs={"pkg/new.py": ("x = 1\n", 1)}).forward("pkg/*.py")
    assert "pkg/new.py" in out.splitlines()


def test_compile_glob_rules() -> None:
    assert compile_glob("*.py")("a/b/c.py")
    assert not compile_glob("a/*.py")("a/b/c.py")
    assert compile_glob("a/**")("a/b/c.py")
    assert compile_glob("**/c.py")("c.py")
    assert compile_glob("[ab].py")("a.py")
    assert not compile_glob("[!ab].py")("a.py")
    assert compile_glob("!*.md")("x.py")
    assert not compile_glob("!*.md")("x.md")
    assert compile_glob("f?.txt")("f1.txt")
    assert not compile_glob("f?.txt")("f/.txt")


# ---- read_file -----------------------------------------------------------------------------
def test_read_file_whole_small_file(tmp_repo: Path) -> None:
    out = make(ReadFile, tmp_repo).forward("pkg/calc.py")
    assert out == "pkg/calc.py (lines 1-2 of 2)\ndef add(a, b):\n    return a + b"


def test_read_file_range_and_normalised_path(tmp_repo: Path) -> None:
    (tmp_repo / "big.txt").write_text(numbered(120))
    out = make(ReadFile, tmp_repo).forward("./pkg/../big.txt", start_line=10, end_line=40)
    assert out.startswith("big.txt (lines 10-40 of 120)\nline 10\nline 11\n")
    assert out.endswith("\nline 40")


def test_a_narrow_range_shows_what_follows_too(tmp_repo: Path) -> None:
    # Qwen2.5-Coder-1.5B asks read_file("config.py", 1, 1) for the file: line 1 alone hid
    # the value it was after (and 0, 0 was refused).
    (tmp_repo / "big.txt").write_text(numbered(120))
    read = make(ReadFile, tmp_repo).forward
    assert read("big.txt", start_line=10, end_line=12).startswith("big.txt (lines 10-29 of 120)")
    (tmp_repo / "small.py").write_text(numbered(5))
    for start, end in ((1, 1), (0, 0)):
        assert read("small.py", start_line=start, end_line=end) == read("small.py")


def test_a_narrow_range_at_the_end_shows_what_comes_before_too(tmp_repo: Path) -> None:
    # through llama-server, Qwen2.5-Coder-1.5B read inventory.py line 12 of 12 (`def restock`,
    # where rg_search found it) and answered with the name of the constant set on line 3
    (tmp_repo / "small.py").write_text(numbered(12))
    read = make(ReadFile, tmp_repo).forward
    assert read("small.py", start_line=12, end_line=12) == read("small.py")
    (tmp_repo / "big.txt").write_text(numbered(120))
    assert read("big.txt", start_line=118, end_line=120).startswith(
        "big.txt (lines 101-120 of 120)"
    )


def test_read_file_has_no_line_number_prefixes(tmp_repo: Path) -> None:
    (tmp_repo / "big.txt").write_text(numbered(5))
    body = make(ReadFile, tmp_repo).forward("big.txt").splitlines()[1:]
    assert body == [f"line {i}" for i in range(1, 6)]


def test_read_file_end_past_the_end_is_clamped(tmp_repo: Path) -> None:
    out = make(ReadFile, tmp_repo).forward("pkg/calc.py", start_line=2, end_line=99)
    assert out.splitlines()[0] == "pkg/calc.py (lines 1-2 of 2)"  # a short file: all of it


def test_read_file_long_file_without_range_shows_first_part_and_next_call(
    tmp_repo: Path,
) -> None:
    (tmp_repo / "big.txt").write_text(numbered(400))
    limits = ToolLimits(max_output_lines=50, max_output_chars=100_000)
    out = make(ReadFile, tmp_repo, limits=limits).forward("big.txt")
    lines = out.splitlines()
    assert lines[0] == "big.txt (lines 1-48 of 400)"
    assert lines[1] == "line 1"
    assert lines[48] == "line 48"
    assert lines[-1] == (
        "[truncated: lines 49-400 not shown. "
        'Next part: read_file(path="big.txt", start_line=49, end_line=400)]'
    )
    assert within_limits(out, limits)
    # followed to the letter, each part points at the next one, up to the end of the file
    out = make(ReadFile, tmp_repo, limits=limits).forward("big.txt", 49, 400)
    assert out.splitlines()[-1] == (
        "[truncated: lines 97-400 not shown. "
        'Next part: read_file(path="big.txt", start_line=97, end_line=400)]'
    )
    out = make(ReadFile, tmp_repo, limits=limits).forward("big.txt", start_line=300)
    assert out.splitlines()[0] == "big.txt (lines 300-347 of 400)"
    assert "lines 348-400 not shown" in out.splitlines()[-1]
    out = make(ReadFile, tmp_repo, limits=limits).forward("big.txt", 300, 320)
    assert out.splitlines()[0] == "big.txt (lines 300-320 of 400)"
    assert out.splitlines()[-1] == "line 320"


def test_read_file_char_limit_cuts_at_line_boundary(tmp_repo: Path) -> None:
    (tmp_repo / "wide.txt").write_text("".join(f"{i:04} " + "x" * 95 + "\n" for i in range(1, 80)))
    limits = ToolLimits(max_output_chars=2000)
    out = make(ReadFile, tmp_repo, limits=limits).forward("wide.txt")
    header = out.splitlines()[0]
    shown = int(re.match(r"wide\.txt \(lines 1-(\d+) of 79\)", header).group(1))  # type: ignore[union-attr]
    assert 5 < shown < 79
    assert out.splitlines()[shown].startswith(f"{shown:04} ")
    assert f'read_file(path="wide.txt", start_line={shown + 1}' in out
    assert within_limits(out, limits)


def test_read_file_single_huge_line(tmp_repo: Path) -> None:
    (tmp_repo / "min.js").write_text("a" * 10_000 + "\nsecond\n")
    out = make(ReadFile, tmp_repo).forward("min.js")
    assert out.startswith("min.js (line 1 of 2, cut)")
    assert "read_file_snippet(" in out
    assert 'read_file(path="min.js", start_line=2' in out
    assert within_limits(out, ToolLimits())


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [(-1, 5, "start_line must be 1"), (9, 3, "before start_line"), (50, None, "past the end")],
)
def test_read_file_bad_range_names_real_length(
    tmp_repo: Path, start: int, end: int | None, message: str
) -> None:
    (tmp_repo / "big.txt").write_text(numbered(40))
    with pytest.raises(ValidationError, match=message) as info:
        make(ReadFile, tmp_repo).forward("big.txt", start_line=start, end_line=end)
    assert info.value.error_type == ErrorType.INVALID_LINE_RANGE
    if start == 50:
        assert "40 lines" in info.value.recovery_suggestion
        assert 'read_file(path="big.txt", start_line=1, end_line=40)' in (
            info.value.recovery_suggestion
        )


def test_read_file_range_too_large(tmp_repo: Path) -> None:
    (tmp_repo / "big.txt").write_text(numbered(3000))
    with pytest.raises(ValidationError, match="limit is 1000") as info:
        make(ReadFile, tmp_repo).forward("big.txt", start_line=1, end_line=2000)
    assert 'read_file(path="big.txt", start_line=1, end_line=1000)' in (
        info.value.recovery_suggestion
    )


def test_read_file_not_found_suggests_closest(tmp_repo: Path) -> None:
    (tmp_repo / "calc.env").write_text("SECRET=1\n")
    with pytest.raises(ToolFailure) as info:
        make(ReadFile, tmp_repo).forward("pkg/calcs.py")
    failure = info.value
    assert failure.error_type == ErrorType.FILE_NOT_FOUND
    assert '"pkg/calc.py"' in failure.recovery_suggestion
    assert 'read_file(path="pkg/calc.py", start_line=1, end_line=50)' in (
        failure.recovery_suggestion
    )
    assert "calc.env" not in failure.recovery_suggestion
    assert failure.to_error("read_file")["context"] == {"path": "pkg/calcs.py"}


@pytest.mark.parametrize(("path", "error"), UNSAFE_PATHS)
def test_read_file_refuses_unsafe_paths(tmp_repo: Path, path: str, error: ErrorType) -> None:
    (tmp_repo / ".env").write_text("SECRET=hunter2\n")
    (tmp_repo.parent / "outside.txt").write_text("outside\n")
    with pytest.raises(ValidationError) as info:
        make(ReadFile, tmp_repo).forward(path)
    assert info.value.error_type == error


def test_read_file_refuses_sensitive_symlink(tmp_repo: Path) -> None:
    (tmp_repo / ".env").write_text("SECRET=hunter2\n")
    (tmp_repo / "innocent.txt").symlink_to(tmp_repo / ".env")
    with pytest.raises(ValidationError) as info:
        make(ReadFile, tmp_repo).forward("innocent.txt")
    assert info.value.error_type == ErrorType.SENSITIVE_PATH


def test_read_file_sensitive_open_document_is_refused(tmp_repo: Path) -> None:
    with pytest.raises(ValidationError):
        make(ReadFile, tmp_repo, docs={".env": ("SECRET=1\n", 1)}).forward(".env")


def test_read_file_directory_and_binary(tmp_repo: Path) -> None:
    with pytest.raises(ToolFailure) as info:
        make(ReadFile, tmp_repo).forward("pkg")
    assert info.value.error_type == ErrorType.INVALID_PATH
    assert 'list_files(pattern="pkg/**")' in info.value.recovery_suggestion
    (tmp_repo / "img.png").write_bytes(b"\x89PNG\x00\x00")
    with pytest.raises(ToolFailure) as info:
        make(ReadFile, tmp_repo).forward("img.png")
    assert info.value.error_type == ErrorType.INVALID_ARGUMENT
    assert "not UTF-8 text" in info.value.message


def test_read_file_empty_and_crlf(tmp_repo: Path) -> None:
    (tmp_repo / "empty.txt").write_text("")
    assert make(ReadFile, tmp_repo).forward("empty.txt") == "empty.txt (empty file, 0 lines)"
    (tmp_repo / "dos.txt").write_bytes(b"one\r\ntwo\r\n")
    assert make(ReadFile, tmp_repo).forward("dos.txt") == "dos.txt (lines 1-2 of 2)\none\ntwo"
    (tmp_repo / "ff.txt").write_text("a\x0cb\nc\n")  # form feed is not a line break
    assert make(ReadFile, tmp_repo).forward("ff.txt").startswith("ff.txt (lines 1-2 of 2)")


def test_read_file_reads_unsaved_buffer(tmp_repo: Path) -> None:
    docs = {"pkg/calc.py": ("new text", 3)}
    out = make(ReadFile, tmp_repo, docs=docs).forward("pkg/calc.py")
    assert out == "pkg/calc.py (lines 1-1 of 1)\nnew text"
    out = make(ReadFile, tmp_repo, docs={"pkg/fresh.py": ("a\nb\n", 1)}).forward("pkg/fresh.py")
    assert out == "pkg/fresh.py (lines 1-2 of 2)\na\nb"


def test_read_file_not_found_lists_unsaved_documents_as_candidates(tmp_repo: Path) -> None:
    with pytest.raises(ToolFailure) as info:
        make(ReadFile, tmp_repo, docs={"pkg/fresh.py": ("a\n", 1)}).forward("pkg/frsh.py")
    assert "pkg/fresh.py" in info.value.recovery_suggestion


# ---- read_file_snippet ---------------------------------------------------------------------
def test_snippet_blocks_with_headers(tmp_repo: Path) -> None:
    (tmp_repo / "big.txt").write_text(numbered(100))
    out = make(ReadFileSnippet, tmp_repo).forward("big.txt", r"line (10|50)$")
    assert out.splitlines() == [
        "big.txt: 2 matching lines in 2 blocks (100 lines in file)",
        "-- lines 7-13 --",
        *[f"line {i}" for i in range(7, 14)],
        "-- lines 47-53 --",
        *[f"line {i}" for i in range(47, 54)],
    ]


def test_snippet_merges_overlapping_blocks_and_clips_at_edges(tmp_repo: Path) -> None:
    (tmp_repo / "big.txt").write_text(numbered(20))
    out = make(ReadFileSnippet, tmp_repo).forward("big.txt", r"line (1|5)$", context_lines=2)
    assert out.splitlines()[1:] == ["-- lines 1-7 --", *[f"line {i}" for i in range(1, 8)]]
    assert merge_blocks([0, 5, 6, 19], 2, 20) == [(0, 8), (17, 19)]


def test_snippet_of_a_definition_shows_all_of_it(tmp_repo: Path) -> None:
    body = "\n".join(f"    step_{i} = {i}" for i in range(8))
    source = f"import os\n\n\ndef total(items):\n{body}\n    return step_7\n\n\nX = 1\n"
    (tmp_repo / "calc.py").write_text(source)
    out = make(ReadFileSnippet, tmp_repo).forward("calc.py", "def total", context_lines=1)
    assert out.splitlines()[1] == "-- lines 4-13 --"  # the def line to its return, not 3 lines
    assert "    return step_7" in out and "X = 1" not in out
    # a match that is no definition keeps its context
    out = make(ReadFileSnippet, tmp_repo).forward("calc.py", "step_3 =", context_lines=1)
    assert out.splitlines()[1] == "-- lines 7-9 --"


def test_snippet_of_a_definition_starts_at_it_or_its_decorators(tmp_repo: Path) -> None:
    """Shown `average` with `weighted_total`'s return line above it, Qwen2.5-Coder-1.5B
    changed that line (L6): the lines before a definition are not its context."""
    source = (
        "def weighted_total(values, weights):\n"
        "    return sum(v * w for v, w in zip(values, weights))\n\n\n"
        "# the mean\n@cache\ndef average(values):\n    return sum(values) / len(values)\n"
    )
    (tmp_repo / "calc.py").write_text(source)
    out = make(ReadFileSnippet, tmp_repo).forward("calc.py", "average", context_lines=3)
    assert out.splitlines()[1:] == [
        "-- lines 5-8 --",
        "# the mean",
        "@cache",
        "def average(values):",
        "    return sum(values) / len(values)",
    ], out


def test_snippet_context_zero_and_clamp(tmp_repo: Path) -> None:
    (tmp_repo / "big.txt").write_text(numbered(100))
    out = make(ReadFileSnippet, tmp_repo).forward("big.txt", "line 50$", context_lines=0)
    assert out.splitlines()[1:] == ["-- lines 50-50 --", "line 50"]
    out = make(ReadFileSnippet, tmp_repo).forward("big.txt", "line 50$", context_lines=99)
    assert "context_lines=99 is above the maximum 20; using 20" in out
    assert "-- lines 30-70 --" in out


def test_snippet_negative_context_and_empty_pattern(tmp_repo: Path) -> None:
    tool = make(ReadFileSnippet, tmp_repo)
    with pytest.raises(ToolFailure) as info:
        tool.forward("pkg/calc.py", "add", context_lines=-1)
    assert info.value.error_type == ErrorType.INVALID_ARGUMENT
    with pytest.raises(ToolFailure) as info:
        tool.forward("pkg/calc.py", "")
    assert 'read_file_snippet(path="pkg/calc.py"' in info.value.recovery_suggestion


def test_snippet_invalid_regex_falls_back_to_literal(tmp_repo: Path) -> None:
    out = make(ReadFileSnippet, tmp_repo).forward("pkg/calc.py", "add(a")
    assert "not a valid regular expression" in out
    assert "matched it literally" in out
    assert "-- lines 1-2 --" in out


def test_snippet_text_with_regex_characters_matches_as_text(tmp_repo: Path) -> None:
    # say: `say(987654321123)` as a regex is a group, and matched nothing nine steps in a row
    (tmp_repo / "say_test.py").write_text("x = [\n    say(987654321123),\n]\n")
    out = make(ReadFileSnippet, tmp_repo).forward("say_test.py", "say(987654321123)")
    assert "matched it as text" in out and "    say(987654321123)," in out
    out = make(ReadFileSnippet, tmp_repo).forward("say_test.py", r"say\(\d+\)")  # a regex
    assert "as text" not in out and "    say(987654321123)," in out
    # a test id copied from a check's list of failing tests: its last part
    (tmp_repo / "say_test.py").write_text(
        "class SayTest:\n    def test_one(self):\n        x = 1\n"
    )
    out = make(ReadFileSnippet, tmp_repo).forward("say_test.py", "say_test.py::SayTest::test_one")
    assert "matched 'test_one', the test id's last part" in out and "        x = 1" in out


def test_snippet_no_match_in_a_short_file_shows_it_whole(tmp_repo: Path) -> None:
    # L4: told only that no line of a three-line data file matched DATA_FILE,
    # Qwen2.5-Coder-1.5B answered with an owner the file does not name
    out = make(ReadFileSnippet, tmp_repo).forward("pkg/calc.py", "multiply")
    calc = (tmp_repo / "pkg/calc.py").read_text()
    assert out == (
        "No lines in pkg/calc.py match 'multiply' (2 lines).\nThe whole file:\n-- lines 1-2 --\n"
        + calc.rstrip("\n")
    )


def test_snippet_no_match_in_a_long_file_is_plain(tmp_repo: Path) -> None:
    (tmp_repo / "big.txt").write_text(numbered(41))
    out = make(ReadFileSnippet, tmp_repo).forward("big.txt", "multiply")
    assert out == "No lines in big.txt match 'multiply' (41 lines)."
    limits = ToolLimits(max_output_lines=10, max_output_chars=100_000)
    (tmp_repo / "small.txt").write_text(numbered(20))
    out = make(ReadFileSnippet, tmp_repo, limits=limits).forward("small.txt", "multiply")
    assert out == "No lines in small.txt match 'multiply' (20 lines)."


def test_snippet_truncates_with_exact_next_call(tmp_repo: Path) -> None:
    (tmp_repo / "big.txt").write_text(numbered(600))
    limits = ToolLimits(max_output_lines=40, max_output_chars=100_000)
    out = make(ReadFileSnippet, tmp_repo, limits=limits).forward("big.txt", r"line \d*0$")
    assert within_limits(out, limits)
    last = out.splitlines()[-1]
    assert last.startswith("[truncated: ")
    cut = int(re.search(r"from line (\d+) on", last).group(1))  # type: ignore[union-attr]
    assert f'read_file(path="big.txt", start_line={cut}, end_line={cut + 49})' in last


def test_snippet_sensitive_and_missing(tmp_repo: Path) -> None:
    (tmp_repo / ".env").write_text("SECRET=1\n")
    with pytest.raises(ValidationError):
        make(ReadFileSnippet, tmp_repo).forward(".env", "SECRET")
    with pytest.raises(ToolFailure) as info:
        make(ReadFileSnippet, tmp_repo).forward("pkg/calk.py", "add")
    assert info.value.error_type == ErrorType.FILE_NOT_FOUND
    assert "pkg/calc.py" in info.value.recovery_suggestion


def test_snippet_reads_unsaved_buffer(tmp_repo: Path) -> None:
    docs = {"pkg/calc.py": ("def add(a, b):\n    return a * b\n", 4)}
    out = make(ReadFileSnippet, tmp_repo, docs=docs).forward("pkg/calc.py", "return")
    assert "return a * b" in out
    assert "a + b" not in out


def test_snippet_clips_very_long_lines(tmp_repo: Path) -> None:
    (tmp_repo / "min.js").write_text("needle" + "x" * 5000 + "\n")
    out = make(ReadFileSnippet, tmp_repo).forward("min.js", "needle")
    assert "more characters]" in out
    assert within_limits(out, ToolLimits())


def test_non_git_directory_file_tools_work(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    assert make(ReadFile, tmp_path).forward("a.txt") == "a.txt (lines 1-1 of 1)\nhello"
    assert make(ListFiles, tmp_path).forward("*").splitlines()[1:] == ["a.txt"]
    git_init(tmp_path)
    assert make(ListFiles, tmp_path).forward("*").splitlines()[1:] == ["a.txt"]


# ---- through the wrapper -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("repo_info", {}),
        ("list_files", {"pattern": "*.py"}),
        ("rg_search", {"pattern": "value"}),
        ("read_file", {"path": "pkg/big.py"}),
        ("read_file", {"path": "pkg/big.py", "start_line": "500"}),
        ("read_file_snippet", {"path": "pkg/big.py", "pattern": "value_1"}),
        ("git_status", {}),
        ("git_diff", {}),
        ("git_log", {"n": 80}),
    ],
)
def test_outputs_fit_the_limits_so_the_wrapper_never_cuts_them_again(
    tmp_path: Path, name: str, arguments: dict[str, object]
) -> None:
    from tools.instrumented import InstrumentedTool

    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "big.py").write_text("".join(f"value_{i} = {i}\n" for i in range(2000)))
    for i in range(150):
        (repo / "pkg" / f"module_with_a_long_name_{i:03}.py").write_text("value = 1\n" * 5)
    git_init(repo)
    (repo / "pkg" / "big.py").write_text("changed\n" * 2000)
    limits = ToolLimits(max_output_chars=2000, max_output_lines=60, max_list_items=80)
    context = tool_context(DiskWorkspace(repo), limits=limits)
    wrapped = InstrumentedTool(ALL_TOOLS[name](context), context)
    out = wrapped(**arguments)
    assert not out.startswith("{"), out
    assert within_limits(out, limits), (len(out), len(out.splitlines()))
    assert "more lines (" not in out  # the wrapper's own truncation note


def test_snippet_is_no_oracle_for_a_redacted_secret(tmp_repo: Path) -> None:
    token = "ghp_Zq8Lm2Xv7Tn4Kp1Rw9Ys3Hd6Fj0Gb5Nc8Vx2Qe"
    (tmp_repo / "settings_local.py").write_text(f'GITHUB = "{token}"\n')
    tool = make(ReadFileSnippet, tmp_repo)
    assert tool.forward("settings_local.py", "ghp_Zq").startswith("No lines in")
    assert "[REDACTED]" in tool.forward("settings_local.py", "GITHUB")
