"""The sandbox container's confinement, in one place (and one unit test).

No network, no capabilities, no privilege gain, nobody's uid, a read-only root with a
noexec tmpfs for /tmp, 512 MiB of memory and no swap, half of one CPU, 100 processes,
the repository read-only at /workspace. No Docker socket, no host namespaces, and an
environment built here from scratch (nothing from the host's).
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

SANDBOX_USER = "65534:65534"
WORKSPACE = "/workspace"
WORK_COPY = "/tmp/work"
MEMORY_LIMIT = "512m"
NANO_CPUS = 500_000_000  # half of one CPU
PIDS_LIMIT = 100
TMPFS_OPTIONS = "rw,noexec,nosuid,nodev,size=256m,mode=1777"
LABEL = "lsp-agent.sandbox"
PROJECT_ENV_MOUNT = "/opt/lsp-agent-env"  # a prepared project environment, read-only

# The whole environment of every sandbox process.
SANDBOX_ENV = {
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME": "/tmp",
    "LANG": "C.UTF-8",
    # No bytecode caches: a patched file can keep its size and mtime second, and a stale
    # .pyc would then run the old code. Every job starts from a fresh copy anyway.
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
}


def host_config_options(
    repo_root: Path, *, auto_remove: bool, project_env: Path | None = None
) -> dict[str, Any]:
    """Keyword arguments for `APIClient.create_host_config`.

    `project_env` (a prepared environment, sandbox/project_env.py) is mounted read-only.
    """
    binds = {str(repo_root): {"bind": WORKSPACE, "mode": "ro"}}
    if project_env is not None:
        binds[str(project_env)] = {"bind": PROJECT_ENV_MOUNT, "mode": "ro"}
    return {
        "binds": binds,
        "network_mode": "none",
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges"],
        "read_only": True,
        "tmpfs": {"/tmp": TMPFS_OPTIONS},
        "mem_limit": MEMORY_LIMIT,
        "memswap_limit": MEMORY_LIMIT,
        "nano_cpus": NANO_CPUS,
        "pids_limit": PIDS_LIMIT,
        "init": True,
        "ipc_mode": "private",
        "privileged": False,
        "auto_remove": auto_remove,
    }


def container_options(
    image: str, command: list[str], *, stdin_open: bool, project_env: bool = False
) -> dict[str, Any]:
    """Keyword arguments for `APIClient.create_container` (besides `host_config`)."""
    environment = dict(SANDBOX_ENV)
    if project_env:
        environment["PYTHONPATH"] = PROJECT_ENV_MOUNT
    return {
        "image": image,
        "command": command,
        "user": SANDBOX_USER,
        "working_dir": WORKSPACE,
        "environment": environment,
        "hostname": "sandbox",
        "stdin_open": stdin_open,
        "detach": not stdin_open,  # attached stdin => StdinOnce: EOF ends the container
        "network_disabled": True,
        "labels": {
            LABEL: "1",
            f"{LABEL}.owner": f"{socket.gethostname()}:{os.getpid()}",
        },
    }
