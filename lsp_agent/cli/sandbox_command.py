"""`lsp-agent sandbox build|status`: make the sandbox image, or say what the sandbox will be.

lsp-agent sandbox build                # offline: debootstrap + docker import (root)
lsp-agent sandbox build --dockerfile   # docker build of sandbox/Dockerfile (registry)
lsp-agent sandbox status               # engine, image, backend; exit 0 when Docker is ready
lsp-agent sandbox prepare [--repo DIR] [--yes]
                                       # the project's declared Python/Node deps, for checks
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lsp_agent.settings import Settings, load_settings

EXIT_OK = 0
EXIT_FAILURE = 1


def configure(parser: argparse.ArgumentParser) -> None:
    """Add `build` and `status` under `parser` (the `sandbox` subcommand's parser)."""
    sub = parser.add_subparsers(dest="sandbox_command", metavar="{build,status,prepare}")
    build = sub.add_parser(
        "build",
        help="build the sandbox image (offline by default)",
        description="Build the versioned sandbox image unless it already exists.",
    )
    method = build.add_mutually_exclusive_group()
    method.add_argument(
        "--offline",
        dest="method",
        action="store_const",
        const="offline",
        help="debootstrap a Debian rootfs and `docker import` it; no registry, needs root "
        "(default)",
    )
    method.add_argument(
        "--dockerfile",
        dest="method",
        action="store_const",
        const="dockerfile",
        help="`docker build` sandbox/Dockerfile; needs a registry for the base image",
    )
    build.add_argument("--force", action="store_true", help="rebuild even if the image exists")
    build.add_argument(
        "--mirror",
        default=None,
        help="Debian mirror for --offline (default: $LSP_AGENT_DEBIAN_MIRROR or "
        "http://deb.debian.org/debian)",
    )
    build.set_defaults(method="offline")
    sub.add_parser("status", help="show the engine, the image and the backend in use")
    prepare = sub.add_parser(
        "prepare",
        help="make the project's declared Python and Node dependencies available to checks",
        description="Python: download the wheels the project declares (pyproject.toml, "
        "requirements*.txt, uv.lock) with your pip configuration, then unpack them in a "
        "container with no network. Node: `npm ci --ignore-scripts` with your npm "
        "configuration from package.json + package-lock.json alone (the repository's .npmrc "
        "is not read; a lock pointing outside your registry is refused), then the install "
        "scripts in a container with no network. Checks mount the results read-only. "
        "Asks first.",
    )
    prepare.add_argument("--repo", default=".", help="the repository (default: .)")
    prepare.add_argument("--yes", action="store_true", help="consent without asking")
    parser.set_defaults(sandbox_command="status")


def run(args: argparse.Namespace) -> int:
    command = getattr(args, "sandbox_command", None) or "status"
    if command == "build":
        return _build(
            method=getattr(args, "method", "offline"),
            force=bool(getattr(args, "force", False)),
            mirror=getattr(args, "mirror", None),
        )
    if command == "prepare":
        from lsp_agent.cli.project_prepare import prepare_command

        return prepare_command(Path(getattr(args, "repo", ".")), yes=bool(args.yes))
    return _status()


def _build(*, method: str, force: bool, mirror: str | None) -> int:
    from sandbox.docker import BuildError, build_image, default_image_tag

    def progress(message: str) -> None:
        print(f"sandbox build: {message}", file=sys.stderr, flush=True)

    try:
        result = build_image(method=method, force=force, mirror=mirror, progress=progress)
    except BuildError as exc:
        print(f"sandbox build failed: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    print(result.tag)
    configured = load_settings(workspace=Path.cwd())[0].sandbox_image
    if configured and configured != default_image_tag():
        print(
            f"note: SANDBOX_IMAGE={configured} is set, so the sandbox uses that image, "
            f"not {result.tag}",
            file=sys.stderr,
        )
    return EXIT_OK


def _status() -> int:
    from sandbox.docker import LABEL, EngineUnavailable, connect, image_exists, image_tag
    from sandbox.factory import docker_problem
    from sandbox.project_envs import project_status

    settings = load_settings(workspace=Path.cwd())[0]
    tag = image_tag(settings.sandbox_config())
    print(f"backend setting: {settings.sandbox_backend}")
    print(f"image:           {tag}")
    try:
        client = connect(timeout_s=5)
    except EngineUnavailable as exc:
        print(f"docker engine:   unavailable ({exc})")
        print(f"image present:   unknown\nwould use:       {_would_use(settings, False)}")
        return EXIT_FAILURE
    try:
        version = client.version().get("Version", "?")
        present = image_exists(tag, client)
        running = client.containers.list(filters={"label": LABEL})
    finally:
        client.close()
    print(f"docker engine:   {version}")
    print(f"image present:   {'yes' if present else 'no (run `lsp-agent sandbox build`)'}")
    print(f"warm containers: {len(running)}")
    ready = present and docker_problem(settings.sandbox_config()) is None
    print(f"would use:       {_would_use(settings, ready)}")
    print(f"project env:     {project_status(Path.cwd())}")
    return EXIT_OK if ready else EXIT_FAILURE


def _would_use(settings: Settings, docker_ready: bool) -> str:
    backend = settings.sandbox_backend
    if backend in ("local", "none"):
        return backend
    if docker_ready:
        return "docker"
    return "none (check: unavailable)" if backend == "docker" else "local (NO isolation)"


def main(argv: list[str] | None = None) -> int:
    """`python -m lsp_agent.cli.sandbox_command build` works without the full CLI."""
    parser = argparse.ArgumentParser(prog="lsp-agent sandbox")
    configure(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
