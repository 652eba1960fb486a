"""A project's declared Python dependencies, read without running anything.

Sources: `pyproject.toml` (`[project].dependencies`, the test/dev extras and dependency
groups), `requirements*.txt` (and `requirements/*.txt`), and `uv.lock` (its registry
pins become constraints). The repository is untrusted, so only requirement *names and
versions* are taken: option lines (`--index-url`, `--extra-index-url`, `-f`,
`--trusted-host`, `-e`, ...) and direct references (`pkg @ https://...`, paths, VCS
URLs) are dropped and listed in `skipped`. Every requirement is parsed with `packaging`
and rebuilt from its parts (name, extras, version specifier, marker): what pip is given is
never the repository's text, so no local path, archive name, URL, option or smuggled
newline reaches it. Nothing here can widen where pip downloads from; that stays the
user's own pip configuration.

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

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

SANDBOX_PYTHON = "3.11"  # the image's python3 (Debian bookworm); wheels are chosen for it
FORMAT_VERSION = "1"  # bump when the environment's layout changes
TEST_GROUPS = frozenset({"test", "tests", "testing", "dev"})
# A name pip would take for a file or directory when one exists by that name.
_ARCHIVE = re.compile(r"\.(whl|zip|tar|tgz|tbz|txz|tlz|gz|bz2|xz|lz|lzma)$", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
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
            pin = _pin(str(name), str(version))
            if pin is not None:
                pins.append(pin)
    return pins


def _pin(name: str, version: str) -> str | None:
    """`name==version`, rebuilt from a valid name and version (None otherwise)."""
    try:
        parsed = Version(version)
    except InvalidVersion:
        return None
    clean = clean_requirement(name)
    return None if clean is None or clean != canonicalize_name(name) else f"{clean}=={parsed}"


def clean_requirement(text: str) -> str | None:
    """The requirement rebuilt from its parsed parts (canonical name, extras, version
    specifier, marker), or None when it is anything else: a direct reference (URL, path,
    VCS), a name pip could take for a local file, or not a PEP 508 requirement at all."""
    if _CONTROL.search(text):
        return None  # a newline would be a second line of the requirements file pip reads
    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return None
    if requirement.url is not None or _ARCHIVE.search(requirement.name):
        return None
    rebuilt: str = canonicalize_name(requirement.name)
    if requirement.extras:
        rebuilt += "[" + ",".join(sorted(canonicalize_name(e) for e in requirement.extras)) + "]"
    rebuilt += str(requirement.specifier)
    if requirement.marker is not None:
        rebuilt += f"; {requirement.marker}"
    return rebuilt


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
    """Keep `line`, rebuilt, when it is a plain requirement (name, extras, versions, markers)."""
    text = line.strip()
    clean = None if text.startswith("-") else clean_requirement(text)
    if clean is None:
        shown = text if text.isprintable() else repr(text)  # a smuggled newline, escaped
        result.skipped.append(f"{source}: {shown}"[:300])
        return
    target.append(clean)
