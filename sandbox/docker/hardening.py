"""The sandbox container's confinement, in one place (and one unit test).

No network, no capabilities, no privilege gain, a non-root uid (the repository owner's,
or nobody's), a read-only root with a noexec tmpfs for /tmp, 512 MiB of memory and no
swap, half of one CPU, 100 processes, the repository seen through copy-on-write views
(or read-only at /workspace). No Docker socket, no host namespaces, and an environment
built here from scratch (nothing from the host's).

Every container lsp-agent creates (check, code and prepare containers) gets its host
configuration here, so none is without a log limit: what a container prints goes to
Docker's log on this machine's disk, and model code can print gigabytes in seconds. A
container whose output is read through its attached socket logs nothing (`none`); one
whose log is read at its end keeps at most `LOG_MAX_SIZE` (the newest output).
"""

from __future__ import annotations

import os
import socket
from typing import Any

from safety.git_hardening import hardened_git_env

SANDBOX_USER = "65534:65534"
WORKSPACE = "/workspace"
WORK_COPY = "/tmp/work"
MEMORY_LIMIT = "512m"
NANO_CPUS = 500_000_000  # half of one CPU
PIDS_LIMIT = 100
TMPFS_OPTIONS = "rw,noexec,nosuid,nodev,size=256m,mode=1777"
LOG_MAX_SIZE = "2m"
LABEL = "lsp-agent.sandbox"
PROJECT_ENV_MOUNT = "/opt/lsp-agent-env"  # a prepared Python environment, read-only
NODE_MODULES_MOUNT = "/sandbox/node_modules"  # a prepared node_modules, read-only

# The whole environment of every sandbox process. Every git run in it, whoever starts it
# (`run_cmd`, a test, a build script), gets the hardened git configuration
# (`safety.git_hardening`): no hooks, no external diff, no fsmonitor, no pager,
# `safe.bareRepository=explicit`.
SANDBOX_ENV = hardened_git_env(
    {
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": "/tmp/home",  # made afresh for every job (sandbox/checks/driver.py)
        "LANG": "C.UTF-8",
        # No bytecode caches: a patched file can keep its size and mtime second, and a
        # stale .pyc would then run the old code. Every job starts from a fresh copy anyway.
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        # npm never reaches out (there is no network): no registry calls, no notices.
        "npm_config_offline": "true",
        "npm_config_update_notifier": "false",
        "npm_config_audit": "false",
        "npm_config_fund": "false",
    },
    # The view's .git may belong to another uid than the job's (a root-owned repository).
    extra_config=(("safe.directory", "*"),),
)


def log_config(*, logs_read: bool) -> dict[str, Any]:
    """Docker's logging for a container: none when its output is read from the attached
    socket, else one json-file of at most `LOG_MAX_SIZE` (what `api.logs` reads)."""
    if not logs_read:
        return {"type": "none", "config": {}}
    return {"type": "json-file", "config": {"max-size": LOG_MAX_SIZE, "max-file": "1"}}


def host_config_options(
    binds: dict[str, dict[str, str]],
    mounts: list[dict[str, Any]],
    *,
    auto_remove: bool,
    logs_read: bool = False,
    memory: str = MEMORY_LIMIT,
    pids: int = PIDS_LIMIT,
    nano_cpus: int | None = NANO_CPUS,
) -> dict[str, Any]:
    """Keyword arguments for `APIClient.create_host_config`, for every container we create.

    `binds` and `mounts` show the container the repository (sandbox/docker/repo_view.py): a
    read-only bind at /workspace, or copy-on-write overlay volumes. `logs_read`: the
    container's output is read with `api.logs` at its end (else from its socket).
    """
    options = {
        "binds": binds,
        "mounts": mounts,
        "network_mode": "none",
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges"],
        "read_only": True,
        "tmpfs": {"/tmp": TMPFS_OPTIONS},
        "mem_limit": memory,
        "memswap_limit": memory,
        "nano_cpus": nano_cpus,
        "pids_limit": pids,
        "init": True,
        "ipc_mode": "private",
        "privileged": False,
        "auto_remove": auto_remove,
        "log_config": log_config(logs_read=logs_read),
    }
    if nano_cpus is None:
        del options["nano_cpus"]
    return options


def container_options(
    image: str,
    command: list[str],
    *,
    stdin_open: bool,
    user: str = SANDBOX_USER,
    working_dir: str = WORKSPACE,
    project_env: bool = False,
) -> dict[str, Any]:
    """Keyword arguments for `APIClient.create_container` (besides `host_config`).

    `user` is the repository owner's uid:gid (sandbox/docker/repo_view.py), never root;
    `project_env`: a prepared environment is mounted (sandbox/project_envs/python_env.py) and on
    `PYTHONPATH`.
    """
    if user.split(":", maxsplit=1)[0] == "0":
        raise ValueError("the sandbox never runs as root")
    environment = dict(SANDBOX_ENV)
    if project_env:
        environment["PYTHONPATH"] = PROJECT_ENV_MOUNT
    return {
        "image": image,
        "command": command,
        "user": user,
        "working_dir": working_dir,
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
