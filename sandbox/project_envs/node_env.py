"""`lsp-agent sandbox prepare` for Node: `package.json` + `package-lock.json`, for checks.

The repository is untrusted, and npm runs package code when it installs (install
scripts), so the work is split:

1. **Download on the host** with the user's own npm and npm configuration (registry,
   proxy, CA file): only `package.json` and the lock are copied into a fresh directory
   under the user's data dir, and `npm ci --ignore-scripts` runs *there*, so the
   repository's `.npmrc` is never read and no package code runs on the host. Before
   that, the lock is vetted (sandbox/project_envs/node_deps.py): a `resolved` URL outside the user's
   registries is refused, never fetched.
2. **Install scripts in a container** with no network: `npm rebuild` in the sandbox
   image runs the packages' install scripts (and builds native add-ons for the image's
   Node) in that directory.

The result, `~/.local/share/lsp-agent/envs/node-<key>/node_modules`, is mounted read-only
at `/sandbox/node_modules` in check containers: the parent directory of every work tree,
so Node finds it for `require` (CommonJS) and for bare `import` specifiers (ESM), which
both look in each ancestor's `node_modules`, and `npm test` puts its `.bin` on `PATH`.
`NODE_PATH` would not do: ESM ignores it. `<key>` is a digest of the two files, so the
environment is reused until they change.
"""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from safety import host_process
from sandbox.project_envs.node_deps import (
    NPMJS,
    SANDBOX_NODE,
    NodeDeclared,
    declared_node,
    lock_path,
    node_dependency_key,
)
from sandbox.project_envs.prepare_container import (
    PrepareError,
    hand_over,
    make_readable,
    run_offline,
)
from sandbox.project_envs.python_env import READY_MARKER, envs_root

DOWNLOAD_TIMEOUT_S = 900.0
REBUILD_TIMEOUT_S = 900.0
CONFIG_TIMEOUT_S = 60.0
REGISTRIES_MAX_AGE_S = 60.0
NODE_MODULES = "node_modules"
# Quiet, offline npm in containers; no telemetry-like calls from the host's npm either.
NPM_QUIET = {
    "npm_config_update_notifier": "false",
    "npm_config_fund": "false",
    "npm_config_audit": "false",
}
CONTAINER_NPM_ENV = {**NPM_QUIET, "npm_config_offline": "true", "npm_config_cache": "/tmp/npm"}

Progress = Callable[[str], None]


@dataclass(frozen=True)
class NodePlan:
    """What prepare will do for the repository's Node dependencies (shown before consent)."""

    repo_root: Path
    key: str
    declared: NodeDeclared
    registries: tuple[str, ...]
    target: Path

    @property
    def ready(self) -> bool:
        return (self.target / READY_MARKER).is_file()

    def describe(self) -> list[str]:
        info = self.declared
        lines = [f"node:         {', '.join(info.files)} ({info.packages} packages in the lock)"]
        if info.refusal:
            return [*lines, f"node refused: {info.refusal}"]
        scripts = f"{info.install_scripts} with install scripts" if info.install_scripts else ""
        return [
            *lines,
            "node 1. download on this machine with your npm configuration from "
            f"{', '.join(self.registries)}: `npm ci --ignore-scripts` in a fresh directory "
            "holding only package.json and the lock (the repository's .npmrc is not read; "
            "no package code runs here)",
            "node 2. `npm rebuild` in a container with no network: runs the packages' "
            f"install scripts{f' ({scripts})' if scripts else ''}; result in {self.target}",
        ]


def node_target(key: str) -> Path:
    return envs_root() / f"node-{key}"


def node_plan(repo_root: Path) -> NodePlan | None:
    """What prepare would do; None when `package.json` declares no dependencies."""
    root = Path(repo_root).resolve()
    key = node_dependency_key(root)
    if key is None:
        return None
    registries = tuple(user_registries())
    return NodePlan(root, key, declared_node(root, list(registries)), registries, node_target(key))


def ready_node_modules(repo_root: Path) -> Path | None:
    """The prepared `node_modules` for the repository's current files, if any."""
    key = node_dependency_key(Path(repo_root))
    if key is None:
        return None
    target = node_target(key)
    return target / NODE_MODULES if (target / READY_MARKER).is_file() else None


def npm_program() -> str:
    try:
        found: str | None = host_process.resolve_program("npm", host_process.vetted_environ())
    except host_process.ProgramNotFound:
        found = None
    if found is None:
        raise PrepareError(
            "prepare for Node needs npm on this machine (it downloads with your npm "
            "configuration); install Node.js with npm"
        )
    return found


def user_registries() -> list[str]:
    """The user's npm registries (default and scoped), from their npm configuration only.

    npm runs in an empty directory, so no project's `.npmrc` takes part. Without npm (or
    when it fails) the public registry is assumed; the download step then says why npm
    is needed. One answer per `REGISTRIES_MAX_AGE_S` window (status requests ask often).
    """
    return list(_registries_in(int(time.monotonic() // REGISTRIES_MAX_AGE_S)))


@functools.lru_cache(maxsize=1)
def _registries_in(window: int) -> tuple[str, ...]:
    return tuple(_ask_npm_registries())


def _ask_npm_registries() -> list[str]:
    try:
        program = npm_program()
    except PrepareError:
        return [NPMJS]
    with tempfile.TemporaryDirectory(prefix="lsp-agent-npm-config-") as neutral:
        try:
            proc = host_process.run(
                [program, "config", "list", "--json"],
                cwd=neutral,
                capture_output=True,
                text=True,
                timeout=CONFIG_TIMEOUT_S,
                stdin=subprocess.DEVNULL,
                env=_host_env(),
            )
            config = json.loads(proc.stdout) if proc.returncode == 0 else {}
        except (OSError, subprocess.TimeoutExpired, ValueError):
            config = {}
    if not isinstance(config, dict):
        config = {}
    found = [str(config.get("registry") or NPMJS)]
    found += [
        str(value)
        for key, value in sorted(config.items())
        if key.startswith("@") and key.endswith(":registry") and isinstance(value, str)
    ]
    return list(dict.fromkeys(found))


def prepare_node(
    prepared: NodePlan, image: str, *, client: Any = None, progress: Progress | None = None
) -> Path:
    """Download, then run install scripts offline; the `node_modules` path. `PrepareError`."""
    say = progress or (lambda message: None)
    if prepared.declared.refusal:
        raise PrepareError(f"node: {prepared.declared.refusal}")
    if prepared.ready:
        return prepared.target / NODE_MODULES
    lock = lock_path(prepared.repo_root)
    if lock is None:  # pragma: no cover - a plan without a lock carries a refusal
        raise PrepareError("node: no package-lock.json")
    root = envs_root()
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".node-{prepared.key}-", dir=root))
    try:
        project = staging / "project"
        project.mkdir()
        for source in (prepared.repo_root / "package.json", lock):
            (project / source.name).write_bytes(source.read_bytes())
        started = time.monotonic()
        say("downloading Node packages with your npm configuration (npm ci --ignore-scripts)")
        download(project)
        say("running install scripts in a container with no network (npm rebuild)")
        rebuild(project, image, client=client)
        marker = {
            "key": prepared.key,
            "node": SANDBOX_NODE,
            "packages": prepared.declared.packages,
            "seconds": round(time.monotonic() - started, 1),
        }
        (project / READY_MARKER).write_text(json.dumps(marker, indent=1), encoding="utf-8")
        (project / NODE_MODULES).mkdir(exist_ok=True)
        make_readable(project)
        if prepared.target.exists():
            shutil.rmtree(prepared.target)
        project.rename(prepared.target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return prepared.target / NODE_MODULES


def download_argv() -> list[str]:
    """`npm ci` without any script, dev and optional dependencies included."""
    return [
        npm_program(),
        "ci",
        "--ignore-scripts",
        "--include=dev",
        "--include=optional",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
    ]


def download(project: Path) -> None:
    """`npm ci --ignore-scripts` in `project` (package.json + lock only), on the host."""
    argv = download_argv()
    try:
        proc = host_process.run(
            argv,
            cwd=project,
            capture_output=True,
            text=True,
            timeout=DOWNLOAD_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            env=_host_env(),
        )
    except FileNotFoundError as exc:
        raise PrepareError(f"npm is not installed on this machine: {exc}") from exc
    except subprocess.TimeoutExpired as exc:
        raise PrepareError(f"npm ci took longer than {DOWNLOAD_TIMEOUT_S:g} s") from exc
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-12:])
        raise PrepareError(f"npm ci failed (nothing was run):\n{tail}")


def rebuild(project: Path, image: str, *, client: Any = None) -> None:
    """`npm rebuild` (install scripts, native add-ons) in a no-network container."""
    hand_over(project)
    code, logs = run_offline(
        image,
        ["npm", "rebuild", "--foreground-scripts"],
        {str(project): {"bind": "/project", "mode": "rw"}},
        working_dir="/project",
        timeout_s=REBUILD_TIMEOUT_S,
        environment=CONTAINER_NPM_ENV,
        client=client,
    )
    if code != 0:
        hint = " (is npm in the sandbox image? `lsp-agent sandbox build`)" if code == 127 else ""
        raise PrepareError(f"npm rebuild failed in the container{hint}: {logs.strip()[-800:]}")


def _host_env() -> dict[str, str]:
    """npm's notices off, over the user's environment (their npm settings included; laid
    over it by `safety.host_process`)."""
    return dict(NPM_QUIET)
