"""Table tests for input validation (safety.validation) and sensitive-file rules."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from safety.errors import ErrorType
from safety.sensitive import DEFAULT_SENSITIVE, SensitiveRules, is_shell_rc
from safety.validation import (
    ValidationError,
    validate_glob,
    validate_input_size,
    validate_line_range,
    validate_path,
)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A workspace with files, a sibling directory outside it, and symlinks of every kind."""
    root = tmp_path / "ws"
    outside = tmp_path / "outside"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "my dir").mkdir()
    outside.mkdir()
    (root / "src" / "pkg" / "mod.py").write_text("x = 1\n")
    (root / "README.md").write_text("hi\n")
    (root / "my dir" / "ünï file.txt").write_text("u\n")
    (root / ".env").write_text("KEY=1\n")
    (outside / "secret.txt").write_text("s\n")
    os.symlink(outside / "secret.txt", root / "abs_escape")
    os.symlink("../outside/secret.txt", root / "rel_escape")
    os.symlink("src/pkg/mod.py", root / "inside_link")
    os.symlink("src", root / "src_link")
    os.symlink("hop2", root / "hop1")
    os.symlink("hop3", root / "hop2")
    os.symlink("../outside", root / "hop3")
    os.symlink("ok2", root / "ok1")
    os.symlink("README.md", root / "ok2")
    os.symlink("loop_b", root / "loop_a")
    os.symlink("loop_a", root / "loop_b")
    os.symlink(".env", root / "notes.txt")
    os.symlink(outside, root / "src" / "pkg" / "out_dir")
    os.symlink(root / "src", root / "abs_inside")
    os.symlink("../../README.md", root / "src" / "pkg" / "up_inside")
    return root


@pytest.mark.parametrize(
    ("path", "relative"),
    [
        ("README.md", "README.md"),
        ("./README.md", "README.md"),
        ("src/pkg/mod.py", "src/pkg/mod.py"),
        ("src/../README.md", "README.md"),
        ("src/pkg/../../README.md", "README.md"),
        ("src//pkg///mod.py", "src/pkg/mod.py"),
        ("my dir/ünï file.txt", "my dir/ünï file.txt"),
        ("inside_link", "src/pkg/mod.py"),
        ("src_link/pkg/mod.py", "src/pkg/mod.py"),
        ("ok1", "README.md"),
        ("abs_inside/pkg/mod.py", "src/pkg/mod.py"),
        ("src/pkg/up_inside", "README.md"),
        ("new/file/not/yet.py", "new/file/not/yet.py"),
        ("file~", "file~"),
        ("a%zz", "a%zz"),
        (".", "."),
    ],
)
def test_accepted_paths(tree: Path, path: str, relative: str) -> None:
    resolved = validate_path(tree, path)
    assert (
        resolved == (tree.resolve() / relative).resolve() or resolved == tree.resolve() / relative
    )
    assert resolved.is_relative_to(tree.resolve())


def test_absolute_path_inside_root_is_accepted(tree: Path) -> None:
    assert validate_path(tree, str(tree / "README.md")) == tree.resolve() / "README.md"
    assert validate_path(str(tree), Path("src/pkg/mod.py")).name == "mod.py"


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("../outside/secret.txt", ErrorType.PATH_OUTSIDE_WORKSPACE),
        ("..", ErrorType.PATH_OUTSIDE_WORKSPACE),
        ("src/../../outside", ErrorType.PATH_OUTSIDE_WORKSPACE),
        ("src/../../ws/README.md", ErrorType.PATH_OUTSIDE_WORKSPACE),
        ("./../ws/README.md", ErrorType.PATH_OUTSIDE_WORKSPACE),
        ("/etc/passwd", ErrorType.PATH_OUTSIDE_WORKSPACE),
        ("/", ErrorType.PATH_OUTSIDE_WORKSPACE),
        ("~/.ssh/id_rsa", ErrorType.INVALID_PATH),
        ("~", ErrorType.INVALID_PATH),
        ("%2e%2e/outside", ErrorType.INVALID_PATH),
        ("%2E%2E%2Foutside", ErrorType.INVALID_PATH),
        ("%252e%252e/outside", ErrorType.INVALID_PATH),
        ("src/%2e%2e/%2e%2e/x", ErrorType.INVALID_PATH),
        ("..\\outside\\secret.txt", ErrorType.INVALID_PATH),
        ("src\\pkg\\mod.py", ErrorType.INVALID_PATH),
        ("README.md\x00.png", ErrorType.INVALID_PATH),
        ("a\nb", ErrorType.INVALID_PATH),
        ("file:///etc/passwd", ErrorType.INVALID_PATH),
        ("file://localhost/etc/passwd", ErrorType.INVALID_PATH),
        ("http://example.com/x", ErrorType.INVALID_PATH),
        ("C:/Windows", ErrorType.INVALID_PATH),
        ("", ErrorType.INVALID_PATH),
        ("   ", ErrorType.INVALID_PATH),
        ("x" * 5000, ErrorType.INVALID_PATH),
        ("abs_escape", ErrorType.PATH_OUTSIDE_WORKSPACE),
        ("rel_escape", ErrorType.PATH_OUTSIDE_WORKSPACE),
        ("hop1", ErrorType.PATH_OUTSIDE_WORKSPACE),
        ("hop1/secret.txt", ErrorType.PATH_OUTSIDE_WORKSPACE),
        ("src/pkg/out_dir/secret.txt", ErrorType.PATH_OUTSIDE_WORKSPACE),
        ("src_link/pkg/out_dir", ErrorType.PATH_OUTSIDE_WORKSPACE),
        ("loop_a", ErrorType.INVALID_PATH),
        (".env", ErrorType.SENSITIVE_PATH),
        ("notes.txt", ErrorType.SENSITIVE_PATH),
        ("src/../.env", ErrorType.SENSITIVE_PATH),
        (".env.production", ErrorType.SENSITIVE_PATH),
        (".git/config", ErrorType.SENSITIVE_PATH),
        (".git/hooks/pre-commit", ErrorType.SENSITIVE_PATH),
        ("deploy/id_rsa", ErrorType.SENSITIVE_PATH),
        ("certs/server.pem", ErrorType.SENSITIVE_PATH),
        ("config/.aws/credentials", ErrorType.SENSITIVE_PATH),
        (".ssh/known_hosts", ErrorType.SENSITIVE_PATH),
        (".netrc", ErrorType.SENSITIVE_PATH),
        (".pypirc", ErrorType.SENSITIVE_PATH),
        ("home/.docker/config.json", ErrorType.SENSITIVE_PATH),
        (".kube/config", ErrorType.SENSITIVE_PATH),
        (".gnupg/secring.gpg", ErrorType.SENSITIVE_PATH),
        ("key.KEY", ErrorType.SENSITIVE_PATH),
    ],
)
def test_refused_paths(tree: Path, path: str, error: ErrorType) -> None:
    with pytest.raises(ValidationError) as info:
        validate_path(tree, path)
    exc = info.value
    assert exc.error_type is error
    assert exc.message and exc.recovery_suggestion
    as_dict = exc.to_error("read_file")
    assert set(as_dict) == {"error", "message", "tool", "context", "recovery_suggestion"}
    assert as_dict["error"] == error.value and as_dict["tool"] == "read_file"


def test_non_string_path_is_refused(tree: Path) -> None:
    with pytest.raises(ValidationError):
        validate_path(tree, 42)  # type: ignore[arg-type]


def test_root_must_be_a_directory(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a directory"):
        validate_path(tmp_path / "missing", "x")


def test_custom_sensitive_rules(tree: Path) -> None:
    rules = DEFAULT_SENSITIVE.extended(names=("*.md",))
    with pytest.raises(ValidationError):
        validate_path(tree, "README.md", sensitive=rules)
    relaxed = SensitiveRules(allow=(".env",))
    assert validate_path(tree, ".env", sensitive=relaxed).name == ".env"


@pytest.mark.parametrize(
    ("path", "sensitive"),
    [
        (".env", True),
        ("app/.env.local", True),
        (".envrc", True),
        ("prod.env", True),
        ("environment.py", False),
        ("src/env.py", False),
        ("id_ed25519.pub", False),  # a public key is fine to read
        ("~/.ssh/config", True),
        ("/home/u/.aws/config", True),
        ("/proc/12/environ", True),
        ("proc/12/environ", False),
        ("/etc/shadow", True),
        (".config/gcloud/credentials.db", True),
        ("x/.git", True),
        (".gitignore", False),
        (".github/workflows/ci.yml", False),
        ("tests/fixtures/key.pem", True),
        ("Makefile", False),
        (".ENV", True),
    ],
)
def test_sensitive_rules(path: str, sensitive: bool) -> None:
    assert (DEFAULT_SENSITIVE.match(path) is not None) is sensitive


def test_shell_rc_names() -> None:
    assert is_shell_rc("~/.bashrc") and is_shell_rc("/home/u/.zshrc")
    assert not is_shell_rc("bashrc.txt")


# ---- line ranges, sizes, globs ---------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "end", "total", "expected"),
    [
        (1, 50, None, (1, 50)),
        (None, None, None, (1, 1000)),
        (10, None, 120, (10, 120)),
        (100, 300, 120, (100, 120)),
        (5, 5, 10, (5, 5)),
        (1, 1000, None, (1, 1000)),
    ],
)
def test_valid_line_ranges(start, end, total, expected) -> None:
    assert validate_line_range(start, end, total_lines=total) == expected


@pytest.mark.parametrize(
    ("start", "end", "total", "fragment"),
    [
        (0, 10, None, "must be 1 or more"),
        (-5, 10, None, "must be 1 or more"),
        (20, 10, None, "before start_line"),
        (1, 1001, None, "limit is 1000"),
        (200, 210, 120, "120 lines"),
        (1, 10, 0, "0 lines"),
        (True, 10, None, "integer"),
        ("1", 10, None, "integer"),
        (1, 2.5, None, "integer"),
    ],
)
def test_invalid_line_ranges(start, end, total, fragment) -> None:
    with pytest.raises(ValidationError) as info:
        validate_line_range(start, end, total_lines=total, path="src/x.py")
    assert fragment in info.value.message
    assert info.value.error_type is ErrorType.INVALID_LINE_RANGE
    hint = info.value.recovery_suggestion
    assert ("empty" in hint) if total == 0 else ("read_file(" in hint)


def test_line_range_hint_uses_real_length_and_path() -> None:
    with pytest.raises(ValidationError) as info:
        validate_line_range(500, 520, total_lines=42, path="pkg/calc.py")
    hint = info.value.recovery_suggestion
    assert "42 lines" in hint
    assert 'read_file(path="pkg/calc.py", start_line=1, end_line=42)' in hint


def test_line_range_custom_maximum() -> None:
    assert validate_line_range(1, 10, max_range=10) == (1, 10)
    with pytest.raises(ValidationError):
        validate_line_range(1, 11, max_range=10)


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("short", True),
        ("x" * 5000, True),
        ("x" * 5001, False),
        ("line\n" * 200, True),
        ("line\n" * 201, False),
        ("a\n" * 199 + "b", True),
        ("", True),
    ],
)
def test_input_size(text: str, ok: bool) -> None:
    if ok:
        assert validate_input_size(text) == text
    else:
        with pytest.raises(ValidationError) as info:
            validate_input_size(text, what="diff")
        assert info.value.error_type is ErrorType.INPUT_TOO_LARGE
        assert "diff" in info.value.recovery_suggestion


def test_input_size_custom_limits_and_type() -> None:
    with pytest.raises(ValidationError):
        validate_input_size("abcdef", max_chars=5)
    with pytest.raises(ValidationError):
        validate_input_size("a\nb\nc", max_lines=2)
    with pytest.raises(ValidationError):
        validate_input_size(b"bytes")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "pattern", ["*.py", "**/*.py", "src/**/test_*.py", "docs/*.md", "{src,tests}/**/*.py", "[ab]*"]
)
def test_valid_globs(pattern: str) -> None:
    assert validate_glob(pattern) == pattern


@pytest.mark.parametrize(
    "pattern",
    [
        "",
        "/etc/*",
        "~/*",
        "../*",
        "src/../../*",
        "**/../../x",
        "{src,..}/*",
        ".*/x",
        "..*/x",
        "src\\*.py",
        "%2e%2e/*",
        "file:///etc/*",
        "C:/x/*",
        ".git/**",
        ".env*",
        "**/.ssh/*",
        "a" * 600,
        "x\x00y",
    ],
)
def test_escaping_globs(pattern: str) -> None:
    with pytest.raises(ValidationError) as info:
        validate_glob(pattern)
    assert info.value.error_type is ErrorType.INVALID_GLOB
    assert "list_files(" in info.value.recovery_suggestion


def test_root_given_through_a_symlink(tree: Path) -> None:
    alias = tree.parent / "alias"
    os.symlink(tree, alias)
    assert validate_path(alias, "README.md") == tree.resolve() / "README.md"
    assert validate_path(alias, str(alias / "src/pkg/mod.py")).name == "mod.py"
    with pytest.raises(ValidationError):
        validate_path(alias, "abs_escape")
    with pytest.raises(ValidationError):
        validate_path(alias, str(tree.parent / "outside" / "secret.txt"))
