"""Which command checks a patch: `CHECK_COMMAND`, else an automatic one.

Automatic: `python -m pytest -q` when the repository has pytest tests, else the test
script of `package.json` (what `npm test` runs, not npm's placeholder) as `sh -c SCRIPT`:
the image has Debian's Node but not npm, whose Debian package cannot be debootstrapped.
Other languages (Go, Rust, ...) use `CHECK_COMMAND` once their toolchain is in the image
(sandbox/README.md).
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Iterable
from pathlib import Path

from sandbox.config import SandboxConfig

AUTO_CHECK_COMMAND = ("python", "-m", "pytest", "-q")
_NPM_PLACEHOLDER = "no test specified"
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
    script = node_test_script(repo_root)
    if script is not None:
        return ("sh", "-c", script)
    return None


def node_test_script(repo_root: Path) -> str | None:
    """`scripts.test` of `package.json` when it is a real one (npm's placeholder is not)."""
    path = repo_root / "package.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8")[:1_000_000])
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    scripts = data.get("scripts") if isinstance(data, dict) else None
    test = scripts.get("test") if isinstance(scripts, dict) else None
    if not isinstance(test, str) or not test.strip() or _NPM_PLACEHOLDER in test:
        return None
    return test.strip()


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
