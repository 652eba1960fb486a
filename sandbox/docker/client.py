"""Connecting to the Docker engine, with one actionable message when it is not there."""

from __future__ import annotations

import logging
from typing import Any

from safety.host_env import user_environ

logger = logging.getLogger(__name__)

BUILD_HINT = "run `lsp-agent sandbox build`"
LOCAL_ONLY = (
    "only a Docker engine on this machine is supported (the sandbox mounts the repository "
    "from this machine's disk); unset DOCKER_HOST or point it at the local socket. For "
    "remote or shared engines see sandbox/README.md"
)
_LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]", "::1")


class EngineUnavailable(Exception):
    """The Docker engine cannot be reached (not installed, not running, no permission)."""


class RemoteEngine(EngineUnavailable):
    """The configured engine is on another machine; the sandbox needs a local one."""


def connect(timeout_s: float = 10.0) -> Any:
    """A `docker.DockerClient` that answered a ping, or raise `EngineUnavailable`."""
    try:
        import docker
        from docker.errors import DockerException
    except ImportError as exc:  # pragma: no cover - docker is a declared dependency
        raise EngineUnavailable(f"the docker Python package is missing ({exc})") from exc
    remote = remote_address(user_environ().get("DOCKER_HOST", ""))
    if remote is not None:
        raise RemoteEngine(f"the Docker engine at {remote} is not on this machine: {LOCAL_ONLY}")
    try:
        client = docker.from_env(timeout=int(max(1.0, timeout_s)), environment=dict(user_environ()))
    except DockerException as exc:
        raise EngineUnavailable(
            f"cannot reach the Docker engine ({_first_line(exc)}): install and start Docker"
        ) from exc
    remote = remote_engine(client)
    if remote is not None:
        client.close()
        raise RemoteEngine(f"the Docker engine at {remote} is not on this machine: {LOCAL_ONLY}")
    try:
        client.ping()
    except Exception as exc:
        client.close()
        raise EngineUnavailable(
            f"the Docker engine does not answer ({_first_line(exc)}): start it "
            "(e.g. `sudo systemctl start docker`)"
        ) from exc
    return client


def remote_engine(client: Any) -> str | None:
    """The engine's address when it is not on this machine (None for a local engine)."""
    base_url = str(getattr(getattr(client, "api", client), "base_url", ""))
    if base_url.startswith("http+docker://") and base_url.endswith("://ssh"):
        return user_environ().get("DOCKER_HOST") or base_url  # docker-py's name for ssh://
    return remote_address(base_url)


def remote_address(url: str) -> str | None:
    """`url` (a DOCKER_HOST or an API base URL) when it names another machine, else None.

    Unix sockets and named pipes are local, and so is tcp to a loopback address; any
    other address (tcp://host, ssh://host) is remote.
    """
    if not url or url.startswith(("unix://", "npipe://", "http+unix://")):
        return None
    host = url.split("://", 1)[-1].split("/", 1)[0]
    if url.startswith("http+docker://") and host in ("localhost", "localnpipe"):
        return None  # docker-py's name for a unix socket or a named pipe
    if host.rsplit(":", 1)[0] in _LOCAL_HOSTS or host in _LOCAL_HOSTS:
        return None
    return url


def engine_reachable(timeout_s: float = 5.0) -> bool:
    try:
        client = connect(timeout_s)
    except EngineUnavailable:
        return False
    client.close()
    return True


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:300]
