"""A project's declared Node dependencies, read and vetted without running anything.

Sources: `package.json` and npm's lock file (`package-lock.json`, or
`npm-shrinkwrap.json`). The repository is untrusted, so before anything is downloaded
the lock and the manifest are vetted (`refusal` says why not, and what to do):

- every lock entry that names where its tarball comes from (`resolved`) must point into
  one of the user's own npm registries (from the user's npm configuration, never the
  repository's `.npmrc`); anything else (another host, `127.0.0.1`, `file:`, git, a
  local link or workspace) is refused, not fetched;
- `package.json` dependency specs must be registry versions (ranges, tags, `npm:`
  aliases): paths, URLs, git and GitHub specs are refused;
- yarn, pnpm and bun locks are not read: prepare works from npm's lock only.

`node_dependency_key` names the environment: a digest of `package.json`, the lock and
the image's Node major version, so a changed file means a new environment.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from safety.validation import read_regular

SANDBOX_NODE = "18"  # the image's node (Debian bookworm); native add-ons are built for it
FORMAT_VERSION = "1"  # bump when the environment's layout changes
NPM_LOCKS = ("package-lock.json", "npm-shrinkwrap.json")
OTHER_LOCKS = {"yarn.lock": "yarn", "pnpm-lock.yaml": "pnpm", "bun.lockb": "bun", "bun.lock": "bun"}
DEPENDENCY_FIELDS = ("dependencies", "devDependencies", "optionalDependencies")
NPMJS = "https://registry.npmjs.org/"
SHOWN = 5  # offending entries named in a refusal
_MAX_FILE_BYTES = 20_000_000
_SAFE_SPEC = re.compile(r"^[\w\s.*^~<>=|+-]*$")  # semver ranges and dist-tags


@dataclass
class NodeDeclared:
    """What the project declares for Node, and why it cannot be prepared (if so)."""

    files: list[str] = field(default_factory=list)
    lock: str = ""
    packages: int = 0  # lock entries npm will install
    install_scripts: int = 0  # of which declare install scripts (they run in the container)
    refusal: str = ""


def read_json(path: Path) -> Any:
    """The file's JSON value, or None when it is missing, too large or not JSON."""
    try:
        if path.is_symlink() or path.stat().st_size > _MAX_FILE_BYTES:
            return None
        return json.loads(read_regular(path).decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def declared_dependencies(manifest: Any) -> dict[str, str]:
    """Name -> spec over the dependency fields of a parsed `package.json`."""
    found: dict[str, str] = {}
    if not isinstance(manifest, dict):
        return found
    for key in DEPENDENCY_FIELDS:
        table = manifest.get(key)
        if isinstance(table, dict):
            found.update({str(name): str(spec) for name, spec in table.items()})
    return found


def lock_path(repo_root: Path) -> Path | None:
    """npm's lock file in the repository, if any."""
    for name in NPM_LOCKS:
        path = Path(repo_root) / name
        if path.is_file() and not path.is_symlink():
            return path
    return None


def node_dependency_files(repo_root: Path) -> list[Path]:
    """`package.json` and npm's lock when the project declares dependencies; else []."""
    manifest = Path(repo_root) / "package.json"
    if not declared_dependencies(read_json(manifest)):
        return []
    lock = lock_path(repo_root)
    return [manifest, lock] if lock is not None else [manifest]


def node_dependency_key(repo_root: Path) -> str | None:
    """16 hex digits naming the declared Node environment; None when nothing is declared."""
    files = node_dependency_files(repo_root)
    if not files:
        return None
    digest = hashlib.sha256(f"v{FORMAT_VERSION} node{SANDBOX_NODE}\n".encode())
    for path in files:
        digest.update(path.name.encode() + b"\0")
        digest.update(path.read_bytes()[:_MAX_FILE_BYTES] + b"\0")
    return digest.hexdigest()[:16]


def declared_node(repo_root: Path, registries: list[str]) -> NodeDeclared:
    """The vetted declaration; `refusal` is set when prepare must not download it.

    `registries` are the user's npm registry URLs (their npm configuration).
    """
    root = Path(repo_root)
    result = NodeDeclared(files=[path.name for path in node_dependency_files(root)])
    manifest = read_json(root / "package.json")
    lock = lock_path(root)
    if lock is None:
        others = [name for name in OTHER_LOCKS if (root / name).exists()]
        tool = OTHER_LOCKS[others[0]] if others else ""
        found = f"{others[0]} ({tool}) is not supported: " if others else "no lock file: "
        result.refusal = (
            f"{found}prepare installs exactly what npm's package-lock.json pins. Create one "
            "with `npm install --package-lock-only --ignore-scripts` (it runs nothing), or "
            "put the dependencies in your own image (SANDBOX_IMAGE)"
        )
        return result
    result.lock = lock.name
    if isinstance(manifest, dict) and manifest.get("workspaces"):
        result.refusal = "npm workspaces are not supported by prepare (local packages)"
        return result
    offenders = [f"package.json: {name}@{spec}" for name, spec in _unsafe_specs(manifest)]
    data = read_json(lock)
    if not isinstance(data, dict):
        result.refusal = f"{lock.name} is not readable JSON"
        return result
    entries = list(lock_entries(data))
    result.packages = len(entries)
    result.install_scripts = sum(1 for _, entry in entries if entry.get("hasInstallScript"))
    allowed = allowed_prefixes(registries)
    offenders += [
        f"{lock.name}: {name} {problem}"
        for name, entry in entries
        if (problem := _entry_problem(entry, allowed))
    ]
    if offenders:
        shown = "; ".join(offenders[:SHOWN])
        more = f" and {len(offenders) - SHOWN} more" if len(offenders) > SHOWN else ""
        result.refusal = (
            f"refused, nothing was downloaded: {shown}{more}. Prepare fetches only from "
            f"your npm registry ({', '.join(registries) or NPMJS}); install such "
            "dependencies in your own image (SANDBOX_IMAGE) instead"
        )
    return result


def lock_entries(lock: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(name, entry) for every package a lock installs: v2/v3 `packages`, v1 `dependencies`."""
    packages = lock.get("packages")
    if isinstance(packages, dict):
        return [
            (name, entry)
            for name, entry in packages.items()
            if name and isinstance(entry, dict)  # "" is the project itself
        ]
    found: list[tuple[str, dict[str, Any]]] = []
    pending = [("", lock.get("dependencies"))]
    while pending and len(found) < 200_000:
        prefix, table = pending.pop()
        if not isinstance(table, dict):
            continue
        for name, entry in table.items():
            if isinstance(entry, dict):
                found.append((f"{prefix}{name}", entry))
                pending.append((f"{prefix}{name}>", entry.get("dependencies")))
    return found


def allowed_prefixes(registries: list[str]) -> tuple[str, ...]:
    """URL prefixes a lock's `resolved` may start with: the user's registries.

    npm itself rewrites `registry.npmjs.org` tarball URLs to the configured registry
    (its default `replace-registry-host=npmjs`), so those are allowed too.
    """
    prefixes = {_with_slash(url) for url in registries if url.startswith(("https://", "http://"))}
    return tuple(sorted(prefixes | {NPMJS}))


def _with_slash(url: str) -> str:
    return url if url.endswith("/") else url + "/"


def _entry_problem(entry: dict[str, Any], allowed: tuple[str, ...]) -> str:
    if entry.get("link"):
        return "is a local link (workspace or file: dependency)"
    resolved = entry.get("resolved")
    if resolved is not None:
        if not isinstance(resolved, str) or not resolved.startswith(allowed):
            return f"resolves to {str(resolved)[:120]!r} (not your npm registry)"
        if "/../" in resolved or "@" in resolved.split("://", 1)[-1].split("/", 1)[0]:
            return f"resolves to {resolved[:120]!r} (not a plain registry URL)"
    version = entry.get("version")
    if isinstance(version, str) and ":" in version:
        return f"has version {version[:120]!r} (not from a registry)"
    return ""


def _unsafe_specs(manifest: Any) -> list[tuple[str, str]]:
    """Dependency specs that are not registry versions (paths, URLs, git, GitHub)."""
    unsafe = []
    for name, spec in declared_dependencies(manifest).items():
        target = spec[4:].rpartition("@")[2] if spec.startswith("npm:") else spec
        if not _SAFE_SPEC.match(target):
            unsafe.append((name, spec))
    return unsafe
