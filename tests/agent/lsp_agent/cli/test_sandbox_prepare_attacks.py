"""`lsp-agent sandbox prepare` must not build the repository's code on the host.

The repository declares a local directory as a dependency: a `requirements.txt` line, and a
newline smuggled into a `pyproject.toml` dependency string. The directory's build backend
writes a marker when pip imports it. The real CLI runs with `--repo .` from inside the
repository (as a user, or the editor's working directory, would); the user's pip has no
index (`PIP_NO_INDEX`), so the test never reaches the network. A positive control shows pip
does build that directory when it is named to it from the repository, `--only-binary=:all:`
or not.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# An in-tree build backend: pip imports it to get the package's metadata (no index needed).
BACKEND = """from pathlib import Path
Path({marker!r}).write_text("the repository's build backend ran on the host")
"""
PYPROJECT = """[build-system]
requires = []
build-backend = "backend"
backend-path = ["."]
"""


def evil_repository(repo: Path, marker: Path) -> None:
    package = repo / "tools" / "evilpkg"
    package.mkdir(parents=True)
    (package / "backend.py").write_text(BACKEND.format(marker=str(marker)))
    (package / "pyproject.toml").write_text(PYPROJECT)
    (repo / "requirements.txt").write_text("tools/evilpkg\n./tools/evilpkg\n")
    (repo / "pyproject.toml").write_text(
        '[project]\nname = "victim"\nversion = "0"\n'
        'dependencies = ["not-on-any-index\\n./tools/evilpkg"]\n'
    )


def user_env(tmp_path: Path) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "SANDBOX_"))},
        "PIP_NO_INDEX": "1",  # the user's pip: no index, so nothing is fetched in a test
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }


def test_prepare_never_hands_pip_a_local_path(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    marker = tmp_path / "PWNED"
    evil_repository(repo, marker)
    env = user_env(tmp_path)
    out = subprocess.run(
        [sys.executable, "-m", "lsp_agent", "sandbox", "prepare", "--repo", ".", "--yes"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert not marker.exists(), "the repository's code ran on the host:\n" + out.stderr
    # the consent text shows what was left out, the smuggled newline escaped
    assert "ignored:      requirements.txt: tools/evilpkg" in out.stderr
    assert "'not-on-any-index\\n./tools/evilpkg'" in out.stderr
    assert "requirements: (none)" in out.stderr
    # positive control: the same pip, given that line in the repository, runs its backend
    pip = [sys.executable, "-m", "pip", "download", "--only-binary=:all:", "--no-deps"]
    subprocess.run(
        [*pip, "--dest", str(tmp_path / "wheels"), "./tools/evilpkg"],
        cwd=repo,
        capture_output=True,
        env=env,
        timeout=300,
    )
    assert marker.exists()
