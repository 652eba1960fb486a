"""Building the sandbox image: offline (debootstrap + `docker import`) or from the Dockerfile."""

from __future__ import annotations

import io
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from safety import host_process
from safety.host_env import user_environ
from sandbox.docker.client import EngineUnavailable, connect
from sandbox.docker.image import (
    DEFAULT_MIRROR,
    DOCKERFILE,
    IMPORT_CHANGES,
    PACKAGES_FILE,
    ROOTFS_SCRIPT,
    default_image_tag,
    image_exists,
    recipe_version,
)

logger = logging.getLogger(__name__)

Progress = Callable[[str], None]


class BuildError(Exception):
    """The image could not be built; the message says why and what to do."""


@dataclass(frozen=True)
class BuildResult:
    tag: str
    built: bool  # False when the image already existed and nothing was done
    duration_s: float
    method: str  # "offline", "dockerfile" or "existing"


def build_image(
    *,
    method: str = "offline",
    force: bool = False,
    tag: str | None = None,
    mirror: str | None = None,
    progress: Progress | None = None,
) -> BuildResult:
    """Build the sandbox image unless it exists (or `force`). Raises `BuildError`."""
    say = progress or logger.info
    target = tag or default_image_tag()
    started = time.monotonic()
    try:
        client = connect()
    except EngineUnavailable as exc:
        raise BuildError(str(exc)) from exc
    try:
        if not force and image_exists(target, client):
            say(f"image {target} already exists (use --force to rebuild)")
            return BuildResult(target, False, time.monotonic() - started, "existing")
        if method == "offline":
            _build_offline(client, target, mirror or _mirror_from_env(), say)
        elif method == "dockerfile":
            _build_dockerfile(client, target, say)
        else:
            raise ValueError(f"unknown build method {method!r}")
    finally:
        client.close()
    duration = time.monotonic() - started
    say(f"built {target} in {duration:.0f} s")
    return BuildResult(target, True, duration, method)


def _mirror_from_env() -> str:
    return user_environ().get("LSP_AGENT_DEBIAN_MIRROR", "").strip() or DEFAULT_MIRROR


def _on_path(program: str) -> bool:
    try:
        host_process.resolve_program(program, host_process.vetted_environ())
    except host_process.ProgramNotFound:
        return False
    return True


def _check_offline_prerequisites() -> None:
    if not _on_path("debootstrap"):
        raise BuildError(
            "debootstrap is not installed (Debian/Ubuntu: `apt-get install debootstrap`); "
            "or build from the Dockerfile with `lsp-agent sandbox build --dockerfile`"
        )
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        raise BuildError(
            "the offline build runs debootstrap, which needs root: "
            "`sudo lsp-agent sandbox build`, or `lsp-agent sandbox build --dockerfile`"
        )
    if not _on_path("tar"):
        raise BuildError("tar is not installed")


def _build_offline(client: Any, tag: str, mirror: str, say: Progress) -> None:
    _check_offline_prerequisites()
    workdir = Path(tempfile.mkdtemp(prefix="lsp-agent-rootfs-"))
    try:
        rootfs = workdir / "rootfs"
        say(f"debootstrap (minbase) from {mirror} into {rootfs} ...")
        _run_logged(["sh", str(ROOTFS_SCRIPT), str(rootfs), mirror, str(PACKAGES_FILE)])
        tarball = workdir / "rootfs.tar"
        say("packing the root filesystem ...")
        _run_logged(["tar", "--numeric-owner", "-C", str(rootfs), "-cf", str(tarball), "."])
        repository, _, version = tag.rpartition(":")
        say(f"docker import as {tag} ...")
        client.api.import_image_from_file(
            str(tarball), repository=repository, tag=version, changes=list(IMPORT_CHANGES)
        )
        _label_check(client, tag)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _build_dockerfile(client: Any, tag: str, say: Progress) -> None:
    from docker.errors import BuildError as DockerBuildError
    from docker.errors import DockerException

    say(f"docker build of {DOCKERFILE} as {tag} (needs a registry for the base image) ...")
    try:
        client.images.build(
            fileobj=io.BytesIO(DOCKERFILE.read_bytes()),
            tag=tag,
            rm=True,
            labels={"lsp-agent.recipe": recipe_version()},
        )
    except (DockerBuildError, DockerException) as exc:
        raise BuildError(
            f"docker build failed: {exc}; without a registry use `lsp-agent sandbox build`"
        ) from exc


def _label_check(client: Any, tag: str) -> None:
    if not image_exists(tag, client):
        raise BuildError(f"docker import finished but image {tag} is not there")


def _run_logged(argv: list[str]) -> None:
    """Run a build step, keeping its output for the error message when it fails."""
    proc = host_process.run(argv, capture_output=True, text=True, check=False)
    for line in proc.stdout.splitlines()[-20:]:
        logger.debug("%s: %s", Path(argv[0]).name, line)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise BuildError(f"`{' '.join(argv[:2])} ...` failed (exit {proc.returncode}):\n{tail}")
