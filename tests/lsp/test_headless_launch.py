"""The headless client (`lsp-agent demo`, the benchmarks) starts `python -m lsp_agent serve`:
started from a directory holding a package named `lsp_agent`, it must still start ours."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from lsp_agent.demo.headless_client import running_server


def test_the_server_is_not_imported_from_the_working_directory(
    tmp_path: Path, tmp_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "PWNED"
    planted = tmp_path / "cwd" / "lsp_agent"
    planted.mkdir(parents=True)
    (planted / "__init__.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    (planted / "__main__.py").write_text("")
    monkeypatch.chdir(planted.parent)

    async def start() -> str:
        async with running_server(tmp_repo) as (_client, result):
            return result.server_info.name if result.server_info else ""

    assert asyncio.run(asyncio.wait_for(start(), 120)) == "lsp-agent"
    assert not marker.exists(), "python -m lsp_agent imported the working directory's package"
