"""Which command checks a patch: `CHECK_COMMAND`, else an automatic one.

Automatic, the first that fits the repository:
- `python -m pytest -q` when it has pytest tests;
- `npm test` when `package.json` has a real test script (not npm's placeholder);
- `go test ./...` when it has `go.mod`;
- `cargo test` when it has `Cargo.toml`.

The default image has Python and Node with npm; Go and Rust are not in it (size). A
command whose program the image lacks is not run: the check says `cannot run` with
`toolchain_problem`'s text, pointing at sandbox/README.md ("Adding a toolchain").
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable, Iterable
from pathlib import Path

from sandbox.config import SandboxConfig

AUTO_CHECK_COMMAND = ("python", "-m", "pytest", "-q")
NPM_TEST = ("npm", "test")
GO_TEST = ("go", "test", "./...")
CARGO_TEST = ("cargo", "test")
# Programs of the auto commands that an image may lack, with the Debian package to add.
TOOLCHAINS = {"npm": "npm", "go": "golang-go", "cargo": "cargo"}
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
    return auto_check_command(repo_root, extra_paths)


def auto_check_command(repo_root: Path, extra_paths: Iterable[str] = ()) -> tuple[str, ...] | None:
    """The automatic command for the repository's language; None when none fits."""
    if has_tests(repo_root, extra_paths):
        return AUTO_CHECK_COMMAND
    if node_test_script(repo_root) is not None:
        return NPM_TEST  # through npm: its PATH (node_modules/.bin) and pre/post scripts
    if (repo_root / "go.mod").is_file():
        return GO_TEST
    if (repo_root / "Cargo.toml").is_file():
        return CARGO_TEST
    return None


def toolchain_problem(command: Iterable[str], has_program: Callable[[str], bool]) -> str:
    """Why `command` cannot run when its toolchain is missing from the image; "" if not.

    Only the auto commands' programs (`TOOLCHAINS`) are asked about; `has_program`
    answers for the sandbox image (the driver looks them up when it starts).
    """
    argv = list(command)
    program = argv[0] if argv else ""
    package = TOOLCHAINS.get(program)
    if package is None or has_program(program):
        return ""
    return (
        f"`{program}` is not in the sandbox image; fix: add the Debian package "
        f'`{package}` to the image recipe (sandbox/README.md, "Adding a toolchain") '
        "and run `lsp-agent sandbox build`, or set CHECK_COMMAND"
    )


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
