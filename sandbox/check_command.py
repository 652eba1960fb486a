"""Which command checks a patch: `CHECK_COMMAND`, or `python -m pytest -q` when there are tests."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable
from pathlib import Path

from sandbox.config import SandboxConfig

AUTO_CHECK_COMMAND = ("python", "-m", "pytest", "-q")
COPY_EXCLUDES = (
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
)
_TEST_FILE = re.compile(r"(^test_.*\.py$)|(.*_test\.py$)|(^conftest\.py$)")
_TEST_CONFIG = ("pytest.ini",)
_MAX_ENTRIES = 20_000


def resolve_check_command(
    config: SandboxConfig, repo_root: Path, extra_paths: Iterable[str] = ()
) -> tuple[str, ...] | None:
    """The configured command as argv, else the auto one when tests exist, else None."""
    configured = config.check_command.strip()
    if configured:
        return tuple(shlex.split(configured))
    if has_tests(repo_root, extra_paths):
        return AUTO_CHECK_COMMAND
    return None


def has_tests(repo_root: Path, extra_paths: Iterable[str] = ()) -> bool:
    """Whether the repository (plus files a diff adds) looks like it has pytest tests."""
    if any(_TEST_FILE.match(Path(path).name) for path in extra_paths):
        return True
    if any((repo_root / name).is_file() for name in _TEST_CONFIG):
        return True
    seen = 0
    for _dirpath, dirnames, filenames in os.walk(repo_root):
        dirnames[:] = [name for name in dirnames if name not in COPY_EXCLUDES]
        if any(_TEST_FILE.match(name) for name in filenames):
            return True
        seen += len(filenames) + len(dirnames)
        if seen > _MAX_ENTRIES:
            return False
    return False


def format_command(argv: Iterable[str]) -> str:
    return shlex.join(list(argv))
