"""The real components CI provisions are there, and doctor sees them."""

from __future__ import annotations

import shutil

from lsp_agent.cli.doctor import Status, check_docker, check_executable
from lsp_agent.settings import Settings
from tests.conftest import require_component


def test_doctor_sees_the_docker_engine(docker_engine: None) -> None:
    check = check_docker(Settings(sandbox_backend="docker"))
    assert check.status is Status.OK, check.detail


def test_doctor_sees_neovim() -> None:
    require_component("Neovim", shutil.which("nvim") is not None, "apt-get install neovim")
    check = check_executable("nvim", "Neovim")
    assert check.status is Status.OK and "NVIM v" in check.detail
