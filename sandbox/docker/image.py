"""The sandbox image: its recipe, its content-versioned tag, and whether it exists.

The tag is `lsp-agent-sandbox:<12 hex>`, a hash of the recipe (the package list, the
rootfs build script, the import settings and the Dockerfile), so a changed recipe means
a new tag and `lsp-agent sandbox build` knows to build again.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

from sandbox.config import SandboxConfig
from sandbox.docker.client import EngineUnavailable, connect

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # sandbox/: the recipe and Dockerfile
RECIPE_DIR = PACKAGE_DIR / "recipe"
PACKAGES_FILE = RECIPE_DIR / "packages.txt"
ROOTFS_SCRIPT = RECIPE_DIR / "build-rootfs.sh"
DOCKERFILE = PACKAGE_DIR / "Dockerfile"
IMAGE_REPOSITORY = "lsp-agent-sandbox"
DEBIAN_SUITE = "bookworm"
DEFAULT_MIRROR = "http://deb.debian.org/debian"

# Image settings `docker import` applies to the offline rootfs (the Dockerfile sets the same).
IMPORT_CHANGES = (
    "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "ENV HOME=/tmp",
    "ENV LANG=C.UTF-8",
    "USER 65534:65534",
    "WORKDIR /workspace",
    'CMD ["sleep", "infinity"]',
)


def recipe_files() -> tuple[Path, ...]:
    return (PACKAGES_FILE, ROOTFS_SCRIPT, DOCKERFILE)


def packages() -> list[str]:
    lines = PACKAGES_FILE.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


@functools.cache
def recipe_version() -> str:
    """12 hex digits naming the recipe's content."""
    digest = hashlib.sha256()
    for path in recipe_files():
        digest.update(path.name.encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    digest.update("\n".join(IMPORT_CHANGES).encode())
    return digest.hexdigest()[:12]


def default_image_tag() -> str:
    return f"{IMAGE_REPOSITORY}:{recipe_version()}"


def image_tag(config: SandboxConfig | None = None) -> str:
    """The image the sandbox runs: `SANDBOX_IMAGE` if set, else the versioned tag."""
    if config is not None and config.image:
        return config.image
    return default_image_tag()


def image_exists(tag: str, client: Any | None = None) -> bool:
    """Whether the engine has image `tag` (False when the engine is unreachable)."""
    from docker.errors import DockerException, ImageNotFound

    owned = client is None
    try:
        engine = connect() if client is None else client
    except EngineUnavailable:
        return False
    try:
        engine.images.get(tag)
    except ImageNotFound:
        return False
    except DockerException:
        return False
    finally:
        if owned:
            engine.close()
    return True
