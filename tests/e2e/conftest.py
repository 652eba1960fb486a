"""Fixtures for tests against real components."""

from __future__ import annotations

import pytest

from tests.conftest import require_component


@pytest.fixture(scope="session")
def sandbox_image(docker_engine: None) -> str:
    """The versioned sandbox image, built offline first when it is missing."""
    from sandbox.docker.image_builder import BuildError, build_image

    try:
        return build_image(method="offline").tag
    except BuildError as exc:
        require_component("sandbox image", False, f"`lsp-agent sandbox build` failed: {exc}")
        raise
