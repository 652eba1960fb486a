"""The Docker engine: connecting, hardened containers, the image, the repository's view.

- `client`: connecting to a local engine, with one actionable message when it is not there;
- `engine`: the narrow `ContainerEngine` interface the Docker backend needs (a fake in unit
  tests), its errors and the prepared project mounts;
- `docker_engine`: `DockerEngine`, that interface on the docker SDK (warm driver containers);
- `attached_stream`: the attached stdin/stdout of a container's main process, read one way
  for the check driver and the code runner;
- `hardening`: the containers' confinement, in one place;
- `image` and `image_builder`: the content-versioned image and its offline builder;
- `repo_view`, `repo_secrets` and `git_view`: how a container sees the repository (as its
  owner, copy-on-write, without secrets; its `.git` a new repository of HEAD alone).

Outside this folder, import from `sandbox.docker` only.
"""

from sandbox.docker.attached_stream import AttachedStream, start_attached
from sandbox.docker.client import BUILD_HINT, EngineUnavailable, RemoteEngine, connect
from sandbox.docker.docker_engine import DockerEngine
from sandbox.docker.engine import (
    ChannelBroken,
    ChannelTimeout,
    ContainerEngine,
    DriverChannel,
    EngineError,
    EngineNotLocal,
    ProjectMounts,
)
from sandbox.docker.hardening import (
    LABEL,
    NODE_MODULES_MOUNT,
    SANDBOX_ENV,
    SANDBOX_USER,
    TMPFS_OPTIONS,
    WORK_COPY,
    WORKSPACE,
    container_options,
    host_config_options,
)
from sandbox.docker.image import default_image_tag, image_exists, image_tag
from sandbox.docker.image_builder import BuildError, build_image
from sandbox.docker.repo_view import TREES

__all__ = [
    "BUILD_HINT",
    "LABEL",
    "NODE_MODULES_MOUNT",
    "SANDBOX_ENV",
    "SANDBOX_USER",
    "TMPFS_OPTIONS",
    "TREES",
    "WORKSPACE",
    "WORK_COPY",
    "AttachedStream",
    "BuildError",
    "ChannelBroken",
    "ChannelTimeout",
    "ContainerEngine",
    "DockerEngine",
    "DriverChannel",
    "EngineError",
    "EngineNotLocal",
    "EngineUnavailable",
    "ProjectMounts",
    "RemoteEngine",
    "build_image",
    "connect",
    "container_options",
    "default_image_tag",
    "host_config_options",
    "image_exists",
    "image_tag",
    "start_attached",
]
