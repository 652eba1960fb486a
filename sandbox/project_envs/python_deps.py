"""A project's declared Python dependencies, read without running anything.

Sources: `pyproject.toml` (`[project].dependencies`, the test/dev extras and dependency
groups), `requirements*.txt` (and `requirements/*.txt`), and `uv.lock` (its registry
pins become constraints). The repository is untrusted, so only requirement *names and
versions* are taken: option lines (`--index-url`, `--extra-index-url`, `-f`,
`--trusted-host`, `-e`, ...) and direct references (`pkg @ https://...`, paths, VCS
URLs) are dropped and listed in `skipped`. Nothing here can widen where pip downloads
from; that stays the user's own pip configuration.

`dependency_key` names the environment: a digest of the dependency files and the
sandbox's Python version, so a changed file means a new environment.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SANDBOX_PYTHON = "3.11"  # the image's python3 (Debian bookworm); wheels are chosen for it
FORMAT_VERSION = "1"  # bump when the environment's layout changes
TEST_GROUPS = frozenset({"test", "tests", "testing", "dev"})
_REQUIREMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9._,\s-]*\])?\s*[^@]*$")
_MAX_FILE_BYTES = 2_000_000


@dataclass
class Declared:
    """What the project declares: requirement lines, constraint pins, and what was dropped."""

    files: list[str] = field(default_factory=list)
    requirements: list[str] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def dependency_files(repo_root: Path) -> list[Path]:
    """The files that declare the project's Python dependencies, sorted."""
    root = Path(repo_root)
    found = [root / "pyproject.toml", root / "uv.lock"]
    found += root.glob("requirements*.txt")
    found += (root / "requirements").glob("*.txt")
    return sorted({path for path in found if path.is_file() and not path.is_symlink()})


def dependency_key(repo_root: Path) -> str | None:
    """16 hex digits naming the declared environment; None when nothing is declared."""
    files = dependency_files(repo_root)
    if not files:
        return None
    digest = hashlib.sha256(f"v{FORMAT_VERSION} python{SANDBOX_PYTHON}\n".encode())
    for path in files:
        digest.update(path.relative_to(repo_root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes()[:_MAX_FILE_BYTES] + b"\0")
    return digest.hexdigest()[:16]


def declared(repo_root: Path) -> Declared:
    """The requirements and constraints the repository declares (validated, deduplicated)."""
    root = Path(repo_root).resolve()
    result = Declared()
    for path in dependency_files(root):
        name = path.relative_to(root).as_posix()
        result.files.append(name)
        if path.name == "pyproject.toml":
            for line in _pyproject(path):
                _add(result, line, name, result.requirements)
        elif path.name == "uv.lock":
            result.constraints += _uv_lock(path)
        else:
            _requirements_file(root, path, result, seen=set())
    result.requirements = list(dict.fromkeys(result.requirements))
    result.constraints = list(dict.fromkeys(result.constraints))
    return result


def _toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")[:_MAX_FILE_BYTES])
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def _pyproject(path: Path) -> list[str]:
    data = _toml(path)
    found = data.get("project")
    project: dict[str, Any] = found if isinstance(found, dict) else {}
    lines = _strings(project.get("dependencies"))
    extras = project.get("optional-dependencies")
    groups = data.get("dependency-groups")
    for table in (extras, groups):
        if isinstance(table, dict):
            for group, entries in table.items():
                if str(group).lower() in TEST_GROUPS:
                    lines += _strings(entries)
    uv_table = data.get("tool", {}).get("uv", {}) if isinstance(data.get("tool"), dict) else {}
    if isinstance(uv_table, dict):
        lines += _strings(uv_table.get("dev-dependencies"))
    return lines


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _uv_lock(path: Path) -> list[str]:
    pins = []
    for package in _toml(path).get("package", []):
        if not isinstance(package, dict):
            continue
        source = package.get("source")
        name, version = package.get("name"), package.get("version")
        if isinstance(source, dict) and "registry" in source and name and version:
            pin = f"{name}=={version}"
            if _REQUIREMENT.match(pin):
                pins.append(pin)
    return pins


def _requirements_file(root: Path, path: Path, result: Declared, seen: set[Path]) -> None:
    if path in seen or len(seen) > 20:
        return
    seen.add(path)
    name = path.relative_to(root).as_posix()
    try:
        text = path.read_text(encoding="utf-8")[:_MAX_FILE_BYTES]
    except (OSError, UnicodeDecodeError):
        result.skipped.append(f"{name}: unreadable")
        return
    for raw in text.replace("\\\n", " ").splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        option, _, rest = line.partition(" ")
        if option in ("-r", "--requirement", "-c", "--constraint"):
            nested = (path.parent / rest.strip()).resolve()
            if nested.is_file() and nested.is_relative_to(root):
                target = result.requirements if option in ("-r", "--requirement") else None
                if target is None:
                    for pin in _plain_lines(nested):
                        _add(result, pin, name, result.constraints)
                else:
                    _requirements_file(root, nested, result, seen)
            else:
                result.skipped.append(f"{name}: {line}")
            continue
        _add(result, line.split(" --", 1)[0].strip(), name, result.requirements)


def _plain_lines(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")[:_MAX_FILE_BYTES]
    except (OSError, UnicodeDecodeError):
        return []
    lines = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return [line for line in lines if line]


def _add(result: Declared, line: str, source: str, target: list[str]) -> None:
    """Keep `line` when it is a plain requirement (name, extras, versions, markers)."""
    requirement = line.strip()
    plain = requirement.split(";", 1)[0]
    if (
        requirement.startswith("-")
        or "://" in requirement
        or "@" in plain
        or not _REQUIREMENT.match(plain)
    ):
        result.skipped.append(f"{source}: {requirement}")
        return
    target.append(requirement)
