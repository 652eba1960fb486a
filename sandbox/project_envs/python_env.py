"""`lsp-agent sandbox prepare`: the project's declared Python dependencies, for checks.

Two steps, so that it works behind a TLS-intercepting proxy and never runs project code
on the host:

1. **Download on the host** with the user's own pip and pip configuration (index, proxy,
   CA bundle): `pip download --only-binary=:all:` for the sandbox's Python, of requirement
   names rebuilt by `sandbox/project_envs/python_deps.py` (never a path, URL or option),
   started in an empty directory (`safety.host_process`), never the repository. Wheels only, so
   nothing is built and no project code runs here.
2. **Install in a container** with no network, no capabilities and a read-only root:
   the wheels are unpacked (a wheel is a zip; no code runs) into a directory under the
   user's data dir, `~/.local/share/lsp-agent/envs/<key>`.

Check containers mount that directory read-only at `ENV_MOUNT` and put it on
`PYTHONPATH`. `<key>` is a digest of the dependency files (sandbox/project_envs/python_deps.py), so
the environment is reused until they change.
"""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from safety import host_process
from safety.user_scope import require_data_dir
from sandbox.project_envs.prepare_container import (
    PrepareError,
    hand_over,
    make_readable,
    run_offline,
)

__all__ = ["PrepareError", "PreparePlan", "env_status", "plan", "prepare", "ready_env"]
from sandbox.project_envs.python_deps import SANDBOX_PYTHON, Declared, declared, dependency_key

READY_MARKER = ".lsp-agent-env.json"
DOWNLOAD_TIMEOUT_S = 900.0
INSTALL_TIMEOUT_S = 300.0
PREPARE_COMMAND = "lsp-agent sandbox prepare"

Progress = Callable[[str], None]

# Unpacks every wheel in argv[1] into argv[2] (purelib/platlib data included, scripts
# and headers left out). Standard library only: it runs in the container.
UNPACK_SOURCE = r"""
import os, shutil, sys, zipfile
wheels, target = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(wheels)):
    if not name.endswith(".whl"):
        continue
    with zipfile.ZipFile(os.path.join(wheels, name)) as wheel:
        for info in wheel.infolist():
            parts = [part for part in info.filename.split("/") if part]
            if info.filename.startswith("/") or ".." in parts or not parts:
                sys.exit(f"unsafe path in {name}: {info.filename!r}")
            if parts[0].endswith(".data"):
                if len(parts) < 3 or parts[1] not in ("purelib", "platlib"):
                    continue
                parts = parts[2:]
            dest = os.path.join(target, *parts)
            if info.is_dir():
                os.makedirs(dest, exist_ok=True)
                continue
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with wheel.open(info) as src, open(dest, "wb") as out:
                shutil.copyfileobj(src, out)
    print("unpacked", name, flush=True)  # stdout-ok: the prepare container's own output
"""


@dataclass(frozen=True)
class PreparePlan:
    """What `prepare` will do for a repository (shown to the user before consent)."""

    repo_root: Path
    key: str
    declared: Declared
    target: Path

    def describe(self) -> list[str]:
        lines = [
            f"repository:   {self.repo_root}",
            f"declared in:  {', '.join(self.declared.files)}",
            f"requirements: {', '.join(self.declared.requirements) or '(none)'}",
        ]
        if self.declared.constraints:
            lines.append(f"pinned by:    uv.lock ({len(self.declared.constraints)} pins)")
        lines += [f"ignored:      {entry}" for entry in self.declared.skipped]
        lines += [
            "1. download wheels of these names from your package index on this machine, "
            "with your pip configuration, in an empty directory (wheels only: nothing is "
            "built, no project code runs here)",
            "2. unpack them in a container with no network into " + str(self.target),
        ]
        return lines


def envs_root() -> Path:
    """Where project environments live: `envs/` in lsp-agent's data directory."""
    return require_data_dir() / "envs"


def plan(repo_root: Path) -> PreparePlan | None:
    """What prepare would do; None when the repository declares no Python dependencies."""
    root = Path(repo_root).resolve()
    host_process.note_workspace(root)  # pip and npm never find programs in it
    key = dependency_key(root)
    if key is None:
        return None
    return PreparePlan(root, key, declared(root), envs_root() / key)


def ready_env(repo_root: Path) -> Path | None:
    """The prepared environment for the repository's current dependency files, if any."""
    key = dependency_key(Path(repo_root))
    if key is None:
        return None
    path = envs_root() / key
    return path if (path / READY_MARKER).is_file() else None


def env_status(repo_root: Path) -> str:
    """One line for doctor / lspAgent.status: ready, not prepared, or nothing declared."""
    root = Path(repo_root)
    key = dependency_key(root)
    if key is None:
        return "no declared Python dependencies"
    if ready_env(root) is not None:
        return f"ready ({envs_root() / key})"
    return f"not prepared (run `{PREPARE_COMMAND} --repo {root}`)"


def prepare(
    prepared: PreparePlan, image: str, *, client: Any = None, progress: Progress | None = None
) -> Path:
    """Download and install the plan's requirements; the environment's path. `PrepareError`."""
    say = progress or (lambda message: None)
    if (prepared.target / READY_MARKER).is_file():
        return prepared.target
    root = envs_root()
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{prepared.key}-", dir=root))
    try:
        wheels, site = staging / "wheels", staging / "site"
        wheels.mkdir()
        site.mkdir()
        started = time.monotonic()
        if prepared.declared.requirements:
            say("downloading wheels with your pip configuration")
            download(prepared.declared, wheels, staging)
            say(f"unpacking {len(list(wheels.glob('*.whl')))} wheels in a container (no network)")
            install(wheels, site, image, client=client)
        marker = {
            "key": prepared.key,
            "requirements": prepared.declared.requirements,
            "wheels": sorted(path.name for path in wheels.glob("*.whl")),
            "python": SANDBOX_PYTHON,
            "seconds": round(time.monotonic() - started, 1),
        }
        (site / READY_MARKER).write_text(json.dumps(marker, indent=1), encoding="utf-8")
        make_readable(site)
        if prepared.target.exists():
            shutil.rmtree(prepared.target)
        site.rename(prepared.target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return prepared.target


def pip_command() -> list[str]:
    """The user's pip: `pip3`/`pip` on the clean PATH (`safety.host_process`), else this
    interpreter's."""
    env = host_process.vetted_environ()
    for name in ("pip3", "pip"):
        try:
            return [host_process.resolve_program(name, env)]
        except host_process.ProgramNotFound:
            continue
    return [sys.executable, "-m", "pip"]


def download_argv(declared_deps: Declared, wheels: Path, work: Path) -> list[str]:
    """`pip download` for the sandbox's Python, wheels only, from sanitised requirement files."""
    requirements = work / "requirements.txt"
    requirements.write_text("\n".join(declared_deps.requirements) + "\n", encoding="utf-8")
    argv = [*pip_command(), "download", "--only-binary=:all:", "--no-input"]
    argv += ["--dest", str(wheels)]
    abi = "cp" + SANDBOX_PYTHON.replace(".", "")
    argv += ["--python-version", SANDBOX_PYTHON, "--implementation", "cp", "--abi", abi]
    for tag in _platform_tags():
        argv += ["--platform", tag]
    argv += ["-r", str(requirements)]
    if declared_deps.constraints:
        constraints = work / "constraints.txt"
        constraints.write_text("\n".join(declared_deps.constraints) + "\n", encoding="utf-8")
        argv += ["-c", str(constraints)]
    return argv


def download(declared_deps: Declared, wheels: Path, work: Path) -> None:
    argv = download_argv(declared_deps, wheels, work)
    try:
        proc = host_process.run(  # in an empty directory: no name resolves to a local path
            argv,
            capture_output=True,
            text=True,
            timeout=DOWNLOAD_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError as exc:
        raise PrepareError(f"pip is not installed on this machine: {exc}") from exc
    except subprocess.TimeoutExpired as exc:
        raise PrepareError(f"pip download took longer than {DOWNLOAD_TIMEOUT_S:g} s") from exc
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-12:])
        raise PrepareError(
            "pip download failed (wheels only; a dependency without a wheel for Python "
            f"{SANDBOX_PYTHON} on Linux cannot be prepared):\n{tail}"
        )


def _platform_tags() -> list[str]:
    machine = platform.machine().lower() or "x86_64"
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    tags = [f"manylinux_2_{minor}_{arch}" for minor in range(36, 4, -1)]
    return [*tags, f"manylinux2014_{arch}", f"manylinux2010_{arch}", f"manylinux1_{arch}"]


def install(wheels: Path, site: Path, image: str, *, client: Any = None) -> None:
    """Unpack the wheels into `site` in a no-network container (the sandbox image)."""
    hand_over(site)
    code, logs = run_offline(
        image,
        ["python3", "-c", UNPACK_SOURCE, "/wheels", "/env"],
        {str(wheels): {"bind": "/wheels", "mode": "ro"}, str(site): {"bind": "/env", "mode": "rw"}},
        working_dir="/tmp",
        timeout_s=INSTALL_TIMEOUT_S,
        client=client,
    )
    if code != 0:
        raise PrepareError(f"unpacking the wheels failed: {logs.strip()[-600:]}")
