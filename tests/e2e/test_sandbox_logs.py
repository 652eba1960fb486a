"""What a container prints does not fill this machine's disk (issue 28, finding 5).

Docker keeps a container's output in a log file on the host, without limit by default: one
12-second code step once wrote 1.35 GB there. On the real engine, a code step writes 200 MB
to its stderr (and, through the runner, its stdout); the container's log on disk stays
empty, while the runner's protocol (read from the attached socket) still works.
"""

from __future__ import annotations

import os

import docker
import pytest

from sandbox.code.session import CodeSession

pytestmark = pytest.mark.docker

FLOOD = """
import os
chunk = b"x" * (1 << 20)
for _ in range(150):
    os.write(2, chunk)
for _ in range(50):
    os.write(1, chunk)
print("still talking")
"""


def test_a_code_step_printing_hundreds_of_megabytes_leaves_no_docker_log(
    sandbox_image: str,
) -> None:
    client = docker.from_env()
    session = CodeSession.docker(client, sandbox_image, step_timeout_s=120)
    try:
        outcome = session.run_step(FLOOD, lambda name, arguments: ("", False))
        assert outcome.error is None and "still talking" in outcome.logs, outcome
        channel = session._channel
        assert channel is not None
        info = client.api.inspect_container(channel.container_id)
        path = info.get("LogPath") or ""
        size = os.path.getsize(path) if path and os.path.exists(path) else 0
        assert size < 4 << 20, f"{size} bytes of container log on the host ({path})"
        assert info["HostConfig"]["LogConfig"]["Type"] == "none"
    finally:
        session.close()
        client.close()
