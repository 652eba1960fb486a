"""The peers' own virtual environments, made by the bench on first use (not in our lock file).

Each peer runs from a virtual environment for the sandbox image's Python, built once under
`$XDG_CACHE_HOME/lsp-agent/bench-peers/` (`LSP_AGENT_BENCH_PEERS` to move it): the venv is
created inside a throwaway container of that image (`python3 -m venv --without-pip`), and the
pinned package is installed into it from PyPI on the host with uv, for the image's Python
version and platform (`uv pip install --target … --python-platform …`): nothing of it runs on
the host. A stamp file marks a finished environment; a half-made one is made again.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from safety import host_process
from sandbox import PrepareError, hand_over, run_offline

ENV_MOUNT = "/peer-env"
STAMP = ".lsp-agent-peer.json"
SETUP_TIMEOUT_S = 120.0
INSTALL_TIMEOUT_S = 1800.0
# Inside the image: make the venv, then say which Python and C library it has.
_MAKE_VENV = (
    "import json, platform, subprocess, sys\n"
    f"subprocess.run([sys.executable, '-m', 'venv', '--without-pip', '{ENV_MOUNT}'], check=True)\n"
    "print(json.dumps({'python': '%d.%d' % sys.version_info[:2],"
    " 'libc': platform.libc_ver()[1]}))\n"
)


@dataclass(frozen=True)
class PeerSpec:
    name: str  # as `--peers` spells it
    requirement: str  # the pinned PyPI package
    module: str  # imported once to prove the environment works


PEERS = {
    "aider": PeerSpec("aider", "aider-chat==0.86.2", "aider.coders"),
    "mini-swe-agent": PeerSpec("mini-swe-agent", "mini-swe-agent==2.4.6", "minisweagent.run.mini"),
}


class PeerEnvironmentError(RuntimeError):
    """A peer's environment could not be made; the message says why and what to do."""


def peers_home() -> Path:
    explicit = os.environ.get("LSP_AGENT_BENCH_PEERS")
    if explicit:
        return Path(explicit)
    cache = os.environ.get("XDG_CACHE_HOME")
    return (Path(cache) if cache else Path.home() / ".cache") / "lsp-agent" / "bench-peers"


def environment_dir(spec: PeerSpec, image: str) -> Path:
    digest = hashlib.sha256(f"{spec.requirement}\0{image}".encode()).hexdigest()[:12]
    return peers_home() / f"{spec.name}-{digest}"


def ensure_environment(spec: PeerSpec, image: str, say: Callable[[str], None]) -> Path:
    """The peer's environment directory (mounted at /peer-env), made now if missing."""
    env = environment_dir(spec, image)
    if (env / STAMP).is_file():
        return env
    say(f"setting up {spec.requirement} in {env} (one time)")
    shutil.rmtree(env, ignore_errors=True)
    env.mkdir(parents=True)
    hand_over(env)
    output = _in_image(spec, image, env, ["python3", "-c", _MAKE_VENV], "rw")
    facts = json.loads(output.strip().splitlines()[-1])
    site = env / "lib" / f"python{facts['python']}" / "site-packages"
    mounted_site = f"{ENV_MOUNT}/{site.relative_to(env)}"
    _install(spec, site, facts["python"], facts["libc"])
    hand_over(env)
    _in_image(spec, image, env, ["python3", "-m", "compileall", "-q", mounted_site], "rw")
    _in_image(spec, image, env, [f"{ENV_MOUNT}/bin/python", "-c", f"import {spec.module}"])
    (env / STAMP).write_text(json.dumps({"requirement": spec.requirement, **facts}), "utf-8")
    return env


def _uv() -> str:
    found = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))
    if not Path(found).is_file():
        raise PeerEnvironmentError("the peers' environments are installed with uv: pip install uv")
    return found


def _install(spec: PeerSpec, site: Path, python: str, libc: str) -> None:
    target = f"{platform.machine()}-manylinux_{libc.replace('.', '_')}"
    argv = [_uv(), "pip", "install", "--quiet", "--target", str(site)]
    argv += ["--python-version", python, "--python-platform", target]
    argv += ["--only-binary", ":all:", spec.requirement]
    done = host_process.run(argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
    if done.returncode != 0:
        raise PeerEnvironmentError(
            f"{spec.name}: `uv pip install {spec.requirement}` failed: {done.stderr[-2000:]}"
        )


def _in_image(spec: PeerSpec, image: str, env: Path, argv: list[str], mode: str = "ro") -> str:
    """Run `argv` in the image with the environment mounted; its output, or raise."""
    binds = {str(env): {"bind": ENV_MOUNT, "mode": mode}}
    try:
        status, output = run_offline(image, argv, binds, working_dir="/", timeout_s=SETUP_TIMEOUT_S)
    except PrepareError as exc:
        raise PeerEnvironmentError(f"{spec.name}: {exc}") from exc
    if status != 0:
        raise PeerEnvironmentError(f"{spec.name}: `{' '.join(argv)}` failed: {output[-2000:]}")
    return output
