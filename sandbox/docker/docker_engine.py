"""`ContainerEngine` on the docker SDK: hardened warm containers that run the driver.

A warm container's main process is the driver in `serve` mode with its stdin attached
to our socket (`StdinOnce`). Jobs travel over that socket, so checks cost no `docker
exec` and no interpreter start. When this process dies, the socket closes, the driver
reads EOF and exits, and Docker removes the container (`auto_remove`): no leftovers
even after a kill -9.
"""

from __future__ import annotations

import base64
import json
import logging
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sandbox.checks import DRIVER_MARKER, DRIVER_SOURCE
from sandbox.docker.attached_stream import AttachedStream, parse_message, start_attached
from sandbox.docker.client import (
    BUILD_HINT,
    LOCAL_ONLY,
    RemoteEngine,
    connect,
    remote_engine,
)
from sandbox.docker.engine import (
    ChannelBroken,
    ChannelTimeout,
    EngineError,
    EngineNotLocal,
    Job,
    Mounts,
    ProjectMounts,
)
from sandbox.docker.hardening import (
    NODE_MODULES_MOUNT,
    PROJECT_ENV_MOUNT,
    WORKSPACE,
    container_options,
    host_config_options,
)
from sandbox.docker.image import image_exists
from sandbox.docker.repo_view import TREES, RepoView, build_view, overlay_possible

logger = logging.getLogger(__name__)


READY_TIMEOUT_S = 60.0


class DockerEngine:
    def __init__(self, client: Any | None = None) -> None:
        self._owns_client = client is None
        try:
            self._client = connect() if client is None else client
        except RemoteEngine as exc:
            raise EngineNotLocal(str(exc)) from exc
        except Exception as exc:
            raise EngineError(str(exc)) from exc
        remote = remote_engine(self._client)
        if remote is not None:
            if self._owns_client:
                self._client.close()
            raise EngineNotLocal(
                f"the Docker engine at {remote} is not on this machine: {LOCAL_ONLY}"
            )
        self.overlay: bool | None = None  # None: not tried yet; False: copy mode

    @property
    def client(self) -> Any:
        return self._client

    def has_image(self, image: str) -> bool:
        return image_exists(image, self._client)

    def start_driver(
        self, repo_root: Path, image: str, project_env: ProjectMounts | None = None
    ) -> DockerDriverChannel:
        container_id, view, sock = self._create_with_view(
            repo_root, image, ["serve", "--sweep"], TREES, warm=True, project_env=project_env
        )
        channel = DockerDriverChannel(self._client.api, container_id, sock, on_close=view.close)
        try:
            channel.wait_ready(READY_TIMEOUT_S)
        except (ChannelBroken, ChannelTimeout) as exc:
            channel.close()
            raise EngineError(
                f"the sandbox container did not start its driver ({exc}); is {image} a "
                f"sandbox image (python3 + git)? {BUILD_HINT}"
            ) from exc
        return channel

    def run_once(
        self, repo_root: Path, image: str, job: Job, timeout_s: float, project_env: Mounts = None
    ) -> Job:
        payload = base64.b64encode(json.dumps(job).encode()).decode()
        api = self._client.api
        container_id, view, _ = self._create_with_view(
            repo_root, image, ["once", payload, "--sweep"], 1, warm=False, project_env=project_env
        )
        try:
            api.wait(container_id, timeout=timeout_s + 30)
            logs = api.logs(container_id, stdout=True, stderr=False).decode("utf-8", "replace")
        finally:
            _force_remove(api, container_id)
            view.close()
        for line in logs.splitlines():
            if not line.startswith(DRIVER_MARKER):
                continue
            answer = parse_message(line[len(DRIVER_MARKER) :])
            if answer is not None:
                return answer
        raise ChannelBroken(f"the one-shot container gave no answer: {logs[-300:]!r}")

    def close(self) -> None:
        if self._owns_client:
            self._client.close()

    def _create_with_view(
        self,
        repo_root: Path,
        image: str,
        mode: list[str],
        trees: int,
        *,
        warm: bool,
        project_env: ProjectMounts | None = None,
    ) -> tuple[str, RepoView, Any]:
        """Create and start a container, with overlay trees when the engine can mount them.

        A warm container's stdin/stdout socket is attached before the start (nothing the
        driver prints is missed) and returned. The first overlay failure switches this
        engine to copy mode (logged once).
        """
        overlay = self.overlay is not False and overlay_possible(repo_root)
        view = build_view(repo_root, overlay=overlay, trees=trees)
        command = ["python3", "-c", DRIVER_SOURCE, *mode]
        if view.overlay:
            command += ["--trees", ":".join(view.tree_paths)]
        container_id, sock = "", None
        api = self._client.api
        try:
            container_id = self._create(view, image, command, warm=warm, project_env=project_env)
            if warm:
                sock = start_attached(api, container_id)
            else:
                api.start(container_id)
        except Exception as exc:
            if sock is not None:
                sock.close()
            if container_id:
                _force_remove(api, container_id)
            view.close()
            if not (view.overlay and _is_mount_error(exc)):
                if isinstance(exc, EngineError):
                    raise
                raise EngineError(f"cannot start the sandbox container: {_brief(exc)}") from exc
            logger.warning(
                "the Docker engine cannot mount overlay work trees (%s): the sandbox copies "
                "the repository for every job instead (slower on large repositories)",
                _brief(exc),
            )
            self.overlay = False
            return self._create_with_view(
                repo_root, image, mode, trees, warm=warm, project_env=project_env
            )
        if view.overlay:
            self.overlay = True
        return container_id, view, sock

    def _create(
        self,
        view: RepoView,
        image: str,
        command: list[str],
        *,
        warm: bool,
        project_env: ProjectMounts | None = None,
    ) -> str:
        from docker.errors import DockerException, ImageNotFound

        api = self._client.api
        user = f"{view.user[0]}:{view.user[1]}"
        working_dir = view.tree_paths[0] if view.overlay else WORKSPACE
        binds = dict(view.binds)
        env = project_env or ProjectMounts()
        if env.python is not None:  # prepared project environments, read-only
            binds[str(env.python)] = {"bind": PROJECT_ENV_MOUNT, "mode": "ro"}
        if env.node_modules is not None:
            binds[str(env.node_modules)] = {"bind": NODE_MODULES_MOUNT, "mode": "ro"}
        try:
            host_config = api.create_host_config(
                **host_config_options(binds, view.mounts, auto_remove=warm, logs_read=not warm)
            )
            created = api.create_container(
                host_config=host_config,
                **container_options(
                    image,
                    command,
                    stdin_open=warm,
                    user=user,
                    working_dir=working_dir,
                    project_env=env.python is not None,
                ),
            )
        except ImageNotFound as exc:
            raise EngineError(f"the sandbox image {image} does not exist: {BUILD_HINT}") from exc
        except DockerException as exc:
            raise EngineError(f"cannot create the sandbox container: {_brief(exc)}") from exc
        except Exception as exc:  # requests' connection errors: the engine went away
            raise EngineError(f"the Docker engine failed: {_brief(exc)}") from exc
        container_id: str = created["Id"]
        return container_id


def _is_mount_error(exc: BaseException) -> bool:
    text = _brief(exc).lower()
    return "mount" in text or "overlay" in text or "volume" in text


class DockerDriverChannel:
    """One warm container and the attached socket its driver listens on."""

    def __init__(
        self,
        api: Any,
        container_id: str,
        sock: Any,
        on_close: Callable[[], None] | None = None,
    ) -> None:
        self._api = api
        self._on_close = on_close
        self.container_id = container_id
        self._stream = AttachedStream(
            sock, DRIVER_MARKER, name="the sandbox container", ended="the sandbox driver exited"
        )
        self.programs: dict[str, bool] = {}

    def wait_ready(self, timeout_s: float) -> dict[str, Any]:
        message = self._next_message(time.monotonic() + timeout_s)
        if not message.get("ready"):
            raise ChannelBroken(f"unexpected first message from the driver: {message}")
        programs = message.get("programs")
        if isinstance(programs, dict):
            self.programs = {str(name): bool(found) for name, found in programs.items()}
        return message

    def request(self, job: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        job_id = secrets.token_hex(8)
        deadline = time.monotonic() + timeout_s
        self._stream.send({"id": job_id, "job": job}, timeout_s)
        while True:
            message = self._next_message(deadline)
            if message.get("id") == job_id:
                return message

    def alive(self) -> bool:
        return self._stream.alive()

    def close(self) -> None:
        if self._stream.closed:
            return
        self._stream.close()
        _force_remove(self._api, self.container_id)
        if self._on_close is not None:
            self._on_close()

    def _next_message(self, deadline: float) -> dict[str, Any]:
        message = self._stream.receive(deadline - time.monotonic())
        if message is None:
            raise ChannelTimeout("the sandbox did not answer in time")
        return message


def _force_remove(api: Any, container_id: str) -> None:
    try:
        api.remove_container(container_id, force=True, v=True)  # and its overlay volumes
    except Exception as exc:  # gone already, or auto-removal in progress
        logger.debug("removing sandbox container %s: %s", container_id[:12], _brief(exc))


def _brief(exc: BaseException) -> str:
    explanation = getattr(exc, "explanation", None)
    text = str(explanation or exc).strip() or type(exc).__name__
    return text.splitlines()[0][:300]
