"""Tests for the tool error schema and recovery hints (safety.errors)."""

from __future__ import annotations

import pytest

from safety.errors import (
    ERROR_KEYS,
    ErrorType,
    closest_paths,
    command_denied_error,
    file_not_found_error,
    hint_command_denied,
    hint_file_not_found,
    hint_line_range,
    hint_patch_does_not_apply,
    is_tool_error,
    line_range_error,
    patch_does_not_apply_error,
    read_file_call,
    tool_error,
)

REPO_FILES = [
    "pkg/__init__.py",
    "pkg/calc.py",
    "pkg/calculus.py",
    "tests/test_calc.py",
    "README.md",
    "docs/guide.md",
]


def test_tool_error_has_exactly_the_contract_keys() -> None:
    err = tool_error(
        ErrorType.FILE_NOT_FOUND,
        "File not found: x",
        tool="read_file",
        context={"path": "x"},
        recovery_suggestion="try y",
    )
    assert tuple(err) == ERROR_KEYS
    assert err == {
        "error": "file_not_found",
        "message": "File not found: x",
        "tool": "read_file",
        "context": {"path": "x"},
        "recovery_suggestion": "try y",
    }
    assert is_tool_error(err)
    assert not is_tool_error({"error": "x"})
    assert not is_tool_error("error")


def test_tool_error_accepts_plain_strings_and_no_context() -> None:
    err = tool_error("custom", "m", tool="t", recovery_suggestion="r")
    assert err["error"] == "custom" and err["context"] == {}


@pytest.mark.parametrize(
    ("missing", "expected_first"),
    [
        ("pkg/calc.pyy", "pkg/calc.py"),
        ("pkg/calcs.py", "pkg/calc.py"),
        ("src/calc.py", "pkg/calc.py"),
        ("test_calc.py", "tests/test_calc.py"),
        ("readme.md", "README.md"),
        ("docs/guides.md", "docs/guide.md"),
    ],
)
def test_file_not_found_suggests_closest_paths(missing: str, expected_first: str) -> None:
    close = closest_paths(missing, REPO_FILES)
    assert close and close[0] == expected_first
    hint = hint_file_not_found(missing, REPO_FILES)
    assert f'"{expected_first}"' in hint
    assert f'read_file(path="{expected_first}", start_line=1, end_line=50)' in hint


def test_file_not_found_without_candidates_lists_files() -> None:
    hint = hint_file_not_found("zzz/qqq.rs", REPO_FILES)
    assert 'list_files(pattern="**/*")' in hint
    err = file_not_found_error("read_file", "zzz/qqq.rs", [])
    assert err["error"] == "file_not_found" and err["context"] == {"path": "zzz/qqq.rs"}


def test_line_range_hint_gives_real_length() -> None:
    hint = hint_line_range("pkg/calc.py", 2)
    assert "has 2 lines" in hint
    assert 'read_file(path="pkg/calc.py", start_line=1, end_line=2)' in hint
    assert "empty" in hint_line_range("e.py", 0)
    long_hint = hint_line_range("big.py", 5000, max_range=1000)
    assert "end_line=1000" in long_hint
    err = line_range_error("read_file", "pkg/calc.py", 10, 20, 2)
    assert err["context"]["total_lines"] == 2 and err["error"] == "invalid_line_range"


def test_patch_hint_names_hunk_and_shows_current_text() -> None:
    current = [f"line {i}" for i in range(1, 21)]
    hint = hint_patch_does_not_apply("pkg/calc.py", 2, "@@ -9,3 +9,4 @@", current, 10)
    assert "Hunk 2 (@@ -9,3 +9,4 @@)" in hint
    assert "    7| line 7" in hint and "   13| line 13" in hint
    assert "    6| line 6" not in hint
    assert 'read_file(path="pkg/calc.py", start_line=7, end_line=13)' in hint
    err = patch_does_not_apply_error(
        "propose_patch_unified",
        "pkg/calc.py",
        hunk_index=1,
        hunk_header="@@ -1 +1 @@\n",
        current_lines=current,
        near_line=1,
    )
    assert err["context"] == {"path": "pkg/calc.py", "hunk": 1, "hunk_header": "@@ -1 +1 @@"}


def test_patch_hint_clamps_line_numbers() -> None:
    hint = hint_patch_does_not_apply("a.py", 1, "@@ -90 +90 @@", ["only"], 90)
    assert "    1| only" in hint
    assert "lines 1-1" in hint


def test_command_denied_hint() -> None:
    with_alt = hint_command_denied("writes outside the workspace", 'propose_patch(path="a")')
    assert "writes outside the workspace" in with_alt and "Safe alternative" in with_alt
    without = hint_command_denied("fork bomb", None)
    assert "Do not retry" in without
    err = command_denied_error("run_cmd", "rm -rf /", "deletes outside", "deny.rm_outside", None)
    assert err["context"] == {"command": "rm -rf /", "rule": "deny.rm_outside"}
    assert err["error"] == "command_denied"


def test_read_file_call_syntax() -> None:
    assert (
        read_file_call("a b/c.py", 3, 9) == 'read_file(path="a b/c.py", start_line=3, end_line=9)'
    )


def test_hints_use_no_invented_file_names() -> None:
    texts = [
        hint_file_not_found("nope.txt", []),
        hint_command_denied("x", None),
        hint_line_range("real/path.py", 10),
    ]
    for text in texts:
        for invented in ("foo", "example.py", "main.py", "file.txt"):
            assert invented not in text


def test_package_exports_and_layering() -> None:
    """safety/ stays pure: no LSP, model or upper-layer imports; main names re-exported."""
    import ast
    from pathlib import Path

    import safety

    assert safety.CommandPolicy is __import__("safety.policy").policy.CommandPolicy
    assert safety.validate_path.__module__ == "safety.validation"
    with pytest.raises(AttributeError):
        _ = safety.nothing_here
    forbidden = ("pygls", "lsprotocol", "smolagents", "litellm", "lsp_agent", "tools", "sandbox")
    package = Path(safety.__file__).parent
    for source in package.rglob("*.py"):
        tree = ast.parse(source.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in forbidden, f"{source.name} imports {name}"


def test_the_tool_errors_are_one_family_with_one_schema() -> None:
    from safety.errors import ToolError, ValidationError
    from tools.base import ToolFailure
    from tools.patches.model import PatchError

    family = [
        ValidationError(ErrorType.INVALID_PATH, "bad path", "use a relative path", {"path": "/x"}),
        ToolFailure(ErrorType.FILE_NOT_FOUND, "missing", "list files", path="a.py"),
        PatchError("no", kind=ErrorType.PATCH_STALE, recovery_suggestion="re-read", file="a.py"),
    ]
    for error in family:
        assert isinstance(error, ToolError)
        result = error.to_error("some_tool")
        assert tuple(result) == ERROR_KEYS
        assert result["tool"] == "some_tool" and result["error"] == error.error_type
        assert result["recovery_suggestion"] and result["context"]
