"""The project profile: one answer per repository fact, computed once per job.

Which command checks the project (CHECK_COMMAND, else the automatic rule below: the first
that fits — `python -m pytest -q` when it has pytest tests, `npm test` when `package.json`
has a real test script (not npm's placeholder), `go test ./...` for a `go.mod`,
`cargo test` for a `Cargo.toml`), which toolchains that needs, and which folders nobody walks
(`SKIPPED_DIRS`: version control, virtualenvs, dependency trees, caches). Every reader asks
the profile: `repo_info` (what the model is told), `run_tests()` without a command, the
patch check, and — through `SKIPPED_DIRS` — the file listing of the tools, the sandbox's
copy of the repository, its tree digest and its secret scan.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from safety.validation import read_regular

# The one list of folders no tool lists, no check copies and no scan walks.
SKIPPED_DIRS: frozenset[str] = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
    }
)
AUTO_CHECK_COMMAND = ("python", "-m", "pytest", "-q")  # for a project with pytest tests
NPM_TEST = ("npm", "test")  # through npm: its PATH (node_modules/.bin) and pre/post scripts
GO_TEST = ("go", "test", "./...")
CARGO_TEST = ("cargo", "test")
_NPM_PLACEHOLDER = "no test specified"
_TEST_FILE = re.compile(r"(^test_.*\.py$)|(.*_test\.py$)|(^conftest\.py$)")
_TEST_CONFIG = ("pytest.ini",)
# The toolchain each automatic check command needs (its program).
TOOLCHAIN_OF = {"python": "python", "npm": "node", "go": "go", "cargo": "rust"}


def iter_files(root: Path) -> Iterator[str]:
    """Every file under `root` (relative POSIX paths), `SKIPPED_DIRS` left out, as found."""
    for current, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        base = Path(current).relative_to(root)
        yield from ((base / name).as_posix() for name in files)


def walk_files(root: Path) -> list[str]:
    """`iter_files(root)`, sorted."""
    return sorted(iter_files(root))


@dataclass(frozen=True)
class ProjectProfile:
    """What a job knows about its repository. `check_command` is None when no check fits
    (no tests found and no CHECK_COMMAND); `configured` says it came from CHECK_COMMAND."""

    root: Path
    check_command: tuple[str, ...] | None
    configured: bool = False
    toolchains: tuple[str, ...] = ()

    def check_for(self, added_paths: Iterable[str] = ()) -> tuple[str, ...] | None:
        """The command that checks a patch adding `added_paths`: a patch that adds the first
        pytest test makes the project one with tests."""
        if self.check_command is None and any(is_test_file(path) for path in added_paths):
            return AUTO_CHECK_COMMAND
        return self.check_command

    def describe_check(self) -> str:
        """The check command as the model is told it (repo_info)."""
        if self.check_command is None:
            return "none found (no tests; run_tests(command=...) runs one you name)"
        command = shlex.join(self.check_command)
        return f"{command} (CHECK_COMMAND)" if self.configured else command


def project_profile(
    root: Path, check_command: str = "", files: Iterable[str] | None = None
) -> ProjectProfile:
    """The profile of the repository at `root` with CHECK_COMMAND `check_command` ("" = the
    automatic rule); `files` are its files when the caller has listed them already (the
    tools list git's files), else a walk finds them."""
    root = Path(root).resolve()
    configured = tuple(shlex.split(check_command.strip()))
    command = configured or auto_check_command(root, iter_files(root) if files is None else files)
    program = command[0] if command else ""
    toolchain = TOOLCHAIN_OF.get("python" if program.startswith("python") else program)
    return ProjectProfile(
        root,
        command or None,
        configured=bool(configured),
        toolchains=(toolchain,) if toolchain else (),
    )


def is_test_file(path: str) -> bool:
    """Whether `path` names a pytest test module (or a `conftest.py`)."""
    return bool(_TEST_FILE.match(Path(path).name))


def auto_check_command(repo_root: Path, files: Iterable[str]) -> tuple[str, ...] | None:
    """The automatic rule for the repository at `repo_root` with `files` (relative paths);
    None when no command fits."""
    if any((repo_root / name).is_file() for name in _TEST_CONFIG) or any(
        is_test_file(path) for path in files
    ):
        return AUTO_CHECK_COMMAND
    if node_test_script(repo_root) is not None:
        return NPM_TEST
    if (repo_root / "go.mod").is_file():
        return GO_TEST
    if (repo_root / "Cargo.toml").is_file():
        return CARGO_TEST
    return None


def node_test_script(repo_root: Path) -> str | None:
    """`scripts.test` of `package.json` when it is a real one (npm's placeholder is not)."""
    path = repo_root / "package.json"
    try:
        data = json.loads(read_regular(path, 1_000_000).decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    scripts = data.get("scripts") if isinstance(data, dict) else None
    test = scripts.get("test") if isinstance(scripts, dict) else None
    if not isinstance(test, str) or not test.strip() or _NPM_PLACEHOLDER in test:
        return None
    return test.strip()
