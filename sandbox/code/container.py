"""The container of `AGENT_TYPE=code`: the code runner, hardened, with no repository at all.

Same confinement as the sandbox's warm containers (sandbox/docker/hardening.py: no network,
read-only root, a non-root uid, no capabilities, no privilege gain, memory/CPU/process limits, a
noexec tmpfs /tmp) and, unlike them, no mount of the repository or anything else of the host. Its
main process is `sandbox/code/runner.py` with stdin attached to our socket (`StdinOnce`): when this
process dies the socket closes, the runner reads EOF and exits, and Docker removes the
container (`auto_remove`).

`CodeChannel` reads the attached socket with `sandbox.docker`'s `AttachedStream` (the check
driver's reader too): partial frames are kept between reads, so the caller can wait in short
slices (to honour cancel) without losing data.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from sandbox import tracing
from sandbox.code import runner
from sandbox.docker import (
    BUILD_HINT,
    SANDBOX_USER,
    AttachedStream,
    ChannelBroken,
    ChannelTimeout,
    EngineError,
    container_options,
    host_config_options,
    start_attached,
)

logger = logging.getLogger(__name__)

RUNNER_SOURCE = Path(runner.__file__).read_text(encoding="utf-8")
READY_TIMEOUT_S = 30.0
WORKING_DIR = "/tmp"  # the only writable place (tmpfs); there is no /workspace here


class CodeChannel:
    """JSON lines to and from the code runner of one container."""

    def __init__(self, api: Any, container_id: str, sock: Any) -> None:
        self._api = api
        self.container_id = container_id
        self._stream = AttachedStream(
            sock, runner.MARKER, name="the code container", ended="the code container ended"
        )

    @property
    def stderr_tail(self) -> str:
        return self._stream.stderr_tail

    def send(self, message: dict[str, Any]) -> None:
        self._stream.send(message, 30.0)

    def receive(self, timeout_s: float) -> dict[str, Any] | None:
        """The runner's next message, or None when none came within `timeout_s`.

        Raises `ChannelBroken` when the container ended (crashed, killed, out of memory)."""
        return self._stream.receive(timeout_s)

    def close(self) -> None:
        if self._stream.closed:
            return
        self._stream.close()
        try:
            self._api.remove_container(self.container_id, force=True)
        except Exception as exc:  # gone already, or auto-removal in progress
            logger.debug("removing code container %s: %s", self.container_id[:12], exc)


def start_code_container(client: Any, image: str) -> CodeChannel:
    """Create and start a hardened code-runner container; wait for its ready line.

    Raises `EngineError` (with what to do) when it cannot start."""
    api = client.api
    command = ["python3", "-c", RUNNER_SOURCE]
    container_id, sock = "", None
    with tracing.span("code_start", image=image) as span:
        started = time.monotonic()
        try:
            host_config = api.create_host_config(
                **host_config_options({}, [], auto_remove=True)  # no binds, no mounts
            )
            created = api.create_container(
                host_config=host_config,
                **container_options(
                    image, command, stdin_open=True, user=SANDBOX_USER, working_dir=WORKING_DIR
                ),
            )
            container_id = created["Id"]
            sock = start_attached(api, container_id)
        except Exception as exc:
            if sock is not None:
                sock.close()
            if container_id:
                try:
                    api.remove_container(container_id, force=True)
                except Exception:
                    logger.debug("removing a code container that did not start", exc_info=True)
            raise EngineError(f"cannot start the code container: {exc}; {BUILD_HINT}") from exc
        channel = CodeChannel(api, container_id, sock)
        try:
            ready = channel.receive(READY_TIMEOUT_S)
        except ChannelBroken as exc:
            channel.close()
            raise EngineError(f"the code container did not start its runner ({exc})") from exc
        if not ready or not ready.get("ready"):
            channel.close()
            raise EngineError("the code container did not start its runner in time")
        tracing.set_attributes(
            span, container=container_id[:12], start_ms=(time.monotonic() - started) * 1000
        )
    return channel


__all__ = ["ChannelBroken", "ChannelTimeout", "CodeChannel", "start_code_container"]
