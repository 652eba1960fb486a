"""Running a peer on one exercise inside a throwaway container of the sandbox image.

The peers run model-chosen actions (mini-swe-agent runs shell commands, aider writes files
the model names and runs the tests), so each run gets its own container with the sandbox's
confinement (`sandbox.run_offline`: no network, no capabilities, no privilege gain, a
read-only root, limited memory and processes, never root). It sees only: the peer's
environment (read-only), the driver script (read-only), the exercise's repository (the one
writable place besides /out and /tmp) and the model relay's Unix socket. What the container
wrote is read back with care: nothing in /out is followed or written to by the host.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsp_agent.benchmarks.edits.peers.environment import ENV_MOUNT
from sandbox import PrepareError, hand_over, run_offline

DRIVER = Path(__file__).with_name("peer_driver.py")
DRIVER_MOUNT = "/peer-tools/peer_driver.py"
WORKSPACE = "/workspace"
OUT = "/out"
SOCKET_DIR = "/run/lsp-agent-model"
MODEL_PORT = 8011  # inside the container: the driver's forwarder to the relay's socket
RESULT_BYTES = 1 << 20


@dataclass(frozen=True)
class PeerRun:
    result: dict[str, Any]  # what the driver wrote (`error` when it failed)
    seconds: float
    timed_out: bool
    log: str  # the container's output


def peer_request(peer: str, model: str, **fields: Any) -> dict[str, Any]:
    """The driver's request: where the model is, and the peer's own fields."""
    return {
        "peer": peer,
        "model": model,
        "api_base": f"http://127.0.0.1:{MODEL_PORT}/v1",
        "socket": f"{SOCKET_DIR}/model.sock",
        "port": MODEL_PORT,
        "workspace": WORKSPACE,
        **fields,
    }


def run_peer(
    image: str,
    env: Path,
    request: dict[str, Any],
    *,
    repo: Path,
    out: Path,
    socket_dir: Path,
    timeout_s: float,
) -> PeerRun:
    out.mkdir(parents=True, exist_ok=True)
    (out / "request.json").write_text(json.dumps(request, indent=1), encoding="utf-8")
    hand_over(repo)
    hand_over(out)
    binds = {
        str(env): {"bind": ENV_MOUNT, "mode": "ro"},
        str(DRIVER): {"bind": DRIVER_MOUNT, "mode": "ro"},
        str(repo): {"bind": WORKSPACE, "mode": "rw"},
        str(out): {"bind": OUT, "mode": "rw"},
        str(socket_dir): {"bind": SOCKET_DIR, "mode": "ro"},
    }
    argv = [f"{ENV_MOUNT}/bin/python", DRIVER_MOUNT, f"{OUT}/request.json"]
    started = time.monotonic()
    timed_out, log = False, ""
    try:
        _, log = run_offline(image, argv, binds, working_dir=WORKSPACE, timeout_s=timeout_s)
    except PrepareError as exc:
        timed_out = time.monotonic() - started >= timeout_s
        log = str(exc)
    seconds = time.monotonic() - started
    result = read_result(out / "result.json")
    if result is None:
        reason = "timed out" if timed_out else "the driver wrote no result"
        result = {"error": f"{reason}: {log[-1500:]}"}
    return PeerRun(result, seconds, timed_out, log)


def read_result(path: Path) -> dict[str, Any] | None:
    """The driver's result, if it is a small regular file of JSON (the container wrote it:
    a symlink there could point anywhere on the host, and is not followed)."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > RESULT_BYTES:
            return None
        result = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return result if isinstance(result, dict) else None
