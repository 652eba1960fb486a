"""The throwaway container `sandbox prepare` installs in: no network, nothing of the host.

What prepare downloaded on the host is mounted read-only, the directory it fills is the
only writable mount, and the confinement is the check containers' (no network, no
capabilities, no privilege gain, read-only root, a noexec tmpfs for /tmp), with more
memory and processes for builds. It never runs as root: as the host user, or as nobody
(65534) when the host user is root.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from sandbox.docker import SANDBOX_ENV, host_config_options

NOBODY = (65534, 65534)
MEMORY_LIMIT = "1g"
PIDS_LIMIT = 256


class PrepareError(Exception):
    """Preparing the environment failed; the message says why and what to do."""


def container_user() -> tuple[int, int]:
    """The uid:gid the prepare container runs as: the host user's, never root's."""
    uid, gid = os.getuid(), os.getgid()
    return NOBODY if uid == 0 else (uid, gid)


def hand_over(directory: Path) -> None:
    """Make `directory` (and what is in it) writable by the container's user."""
    uid, gid = container_user()
    if (uid, gid) == (os.getuid(), os.getgid()):
        return
    for dirpath, dirnames, filenames in os.walk(directory):
        for name in (".", *dirnames, *filenames):
            with contextlib.suppress(OSError):
                os.lchown(os.path.join(dirpath, name), uid, gid)


def run_offline(
    image: str,
    command: list[str],
    binds: dict[str, dict[str, str]],
    *,
    working_dir: str,
    timeout_s: float,
    environment: dict[str, str] | None = None,
    client: Any = None,
) -> tuple[int, str]:
    """Run `command` to its end in a no-network container; (exit status, its output).

    Raises `PrepareError` when the container cannot be run or does not finish in time.
    """
    from sandbox.docker import connect

    owned = client is None
    try:
        engine = connect() if client is None else client
    except Exception as exc:
        raise PrepareError(f"prepare needs Docker: {exc}") from exc
    api = engine.api
    container_id = ""
    uid, gid = container_user()
    try:
        host_config = api.create_host_config(
            **host_config_options(
                binds,
                [],
                auto_remove=False,
                logs_read=True,
                memory=MEMORY_LIMIT,
                pids=PIDS_LIMIT,
                nano_cpus=None,  # builds may use the machine's CPUs
            )
        )
        created = api.create_container(
            image=image,
            command=command,
            user=f"{uid}:{gid}",
            working_dir=working_dir,
            environment={**SANDBOX_ENV, **(environment or {})},
            network_disabled=True,
            host_config=host_config,
        )
        container_id = created["Id"]
        api.start(container_id)
        status = api.wait(container_id, timeout=timeout_s)
        logs = api.logs(container_id, stdout=True, stderr=True).decode("utf-8", "replace")
    except Exception as exc:
        raise PrepareError(f"the install container failed: {exc}") from exc
    finally:
        if container_id:
            with contextlib.suppress(Exception):  # already gone
                api.remove_container(container_id, force=True)
        if owned:
            engine.close()
    return int(status.get("StatusCode", 1)), logs


def make_readable(directory: Path) -> None:
    """World-readable (check containers run as the repository owner or nobody), never
    world-writable. Symlinks are left alone (never followed)."""
    for dirpath, dirnames, filenames in os.walk(directory):
        for name in (".", *dirnames, *filenames):
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                continue
            mode = os.lstat(path).st_mode & 0o777
            is_dir = name == "." or os.path.isdir(path)
            wanted = (mode | (0o755 if is_dir else 0o644)) & ~0o022
            if wanted != mode:
                with contextlib.suppress(OSError):
                    os.chmod(path, wanted)
