"""How the sandbox sees any repository (real engine): a 0700 repository of a non-root user
with no chmod, secrets absent while git works, and a tree larger than the container's tmpfs.
The host repository is byte-identical after every job.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from sandbox import open_sandbox
from sandbox.config import SandboxConfig
from sandbox.docker_backend import DockerSandbox
from tests.conftest import git_init
from tests.e2e.test_sandbox_abuse import OWNER, make_private
from tests.repo_samples import CALC_DIFF, tree_digest

pytestmark = pytest.mark.docker

SECRET = "ghp_0123456789abcdefSECRETTOKEN"
PRIVATE_KEY = f"-----BEGIN PRIVATE KEY-----\n{SECRET}\n-----END PRIVATE KEY-----\n"
CERTIFICATE = "-----BEGIN CERTIFICATE-----\nMIIBcertificate\n-----END CERTIFICATE-----\n"
HIDDEN = [".env", ".env.local", "services/api/.env.production", "config/credentials.json"]
HIDDEN += ["keys/server.key", "keys/id_rsa", ".npmrc", "deploy/prod.tfstate", "tls/key.pem"]
KEPT = {".env.example": "API_KEY=changeme\n", "keys/id_rsa.pub": "ssh-ed25519 AAAA me\n"}
KEPT["tls/ca.pem"] = CERTIFICATE


def open_docker(repo: Path) -> DockerSandbox:
    box = open_sandbox(repo, SandboxConfig(backend="docker", timeout_s=60))
    assert isinstance(box, DockerSandbox), box
    return box


def git(repo: Path, *argv: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    done = subprocess.run(
        ["git", "-c", "safe.directory=*", *argv],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_a_private_repository_of_a_user_is_checked_with_no_chmod(tmp_repo, sandbox_image):
    make_private(tmp_repo)
    modes = {path: path.stat().st_mode for path in (tmp_repo, *tmp_repo.rglob("*"))}
    before = tree_digest(tmp_repo)
    with open_docker(tmp_repo) as box:
        check = box.check_patch(CALC_DIFF)
        assert check.check_status == "passed", check.output
        who = box.run(["sh", "-c", "id -u; id -g; git rev-parse HEAD"])
        assert who.stdout.split()[:2] == [str(OWNER), str(OWNER)], who.stderr
        assert who.stdout.split()[2] == git(tmp_repo, "rev-parse", "HEAD")
        created = box.run(["sh", "-c", "echo x > new.py && echo y >> pkg/calc.py && ls"])
        assert created.ok, created.stderr
    assert tree_digest(tmp_repo) == before
    assert {path: path.stat().st_mode for path in modes} == modes
    assert all(path.stat().st_uid == OWNER for path in modes)


@pytest.mark.parametrize("private", [False, True], ids=["root-owned", "0700 of a user"])
def test_secrets_are_empty_in_the_sandbox_while_git_works(tmp_path, sandbox_image, private):
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "test_env.py").write_text(
        "import pathlib\n\n\ndef test_env_is_empty():\n"
        "    assert pathlib.Path('.env').read_text() == ''\n"
    )
    for name in HIDDEN:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(PRIVATE_KEY if "key" in name else f"TOKEN={SECRET}\n")
    for name, text in KEPT.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git_init(repo)
    git(repo, "remote", "add", "origin", f"https://bot:{SECRET}@git.example.invalid/x/y.git")
    git(repo, "config", "http.extraheader", f"AUTHORIZATION: bearer {SECRET}")
    if private:
        make_private(repo)
    head = git(repo, "rev-parse", "HEAD")
    before = tree_digest(repo)
    with open_docker(repo) as box:
        for name in HIDDEN:
            shown = box.run(["cat", name])
            assert shown.ok and shown.stdout == "", (name, shown)
        for name, text in KEPT.items():
            assert box.run(["cat", name]).stdout == text
        everything = box.run(["sh", "-c", "grep -rl ghp_ . --exclude-dir=objects; echo END"])
        assert everything.stdout.strip() == "END", everything.stdout
        assert box.run(["git", "rev-parse", "HEAD"]).stdout.strip() == head
        status = box.run(["git", "status", "--porcelain"])
        assert status.ok, status.stderr
        assert "M  .env" in status.stdout  # emptied in the view, committed on the host
        remote = box.run(["git", "remote", "-v"]).stdout
        assert "git.example.invalid/x/y.git" in remote and SECRET not in remote
        check = box.check_patch(
            "--- a/pkg/__init__.py\n+++ b/pkg/__init__.py\n@@ -0,0 +1 @@\n+X = 1\n"
        )
        assert check.check_status == "passed", check.output
    assert tree_digest(repo) == before


def make_large_tree(repo: Path, files: int = 20_000, big_mb: int = 300) -> None:
    """`files` small Python files plus sparse big files: `big_mb` MB, made in seconds."""
    for index in range(files):
        package = repo / "lib" / f"p{index // 500}"
        if index % 500 == 0:
            package.mkdir(parents=True)
            (package / "__init__.py").write_text("")
        (package / f"m{index}.py").write_text(f"VALUE = {index}\n")
    data = repo / "data"
    data.mkdir()
    for index in range(big_mb // 100):
        with open(data / f"blob{index}.bin", "wb") as handle:
            handle.truncate(100 * 1024 * 1024)


def test_a_tree_larger_than_the_tmpfs_is_checked(tmp_repo, sandbox_image):
    make_large_tree(tmp_repo)
    with open_docker(tmp_repo) as box:
        first = box.check_patch(CALC_DIFF)
        assert first.check_status == "passed", first.output
        second = box.check_patch(CALC_DIFF)
        assert second.check_status == "passed", second.output
        sizes = box.run(["sh", "-c", "du -sm --apparent-size data; ls lib | wc -l"])
        assert int(sizes.stdout.split()[0]) >= 300  # more than the 256 MiB /tmp holds
        assert sizes.stdout.split()[-1] == "40"
    assert not any(p.name.endswith(".orig") for p in (tmp_repo / "pkg").iterdir())
    assert (tmp_repo / "pkg" / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"


def test_copy_mode_serves_engines_without_overlay_mounts(tmp_repo, sandbox_image):
    from sandbox.docker.docker_engine import DockerEngine

    (tmp_repo / ".env").write_text(f"TOKEN={SECRET}\n")
    make_private(tmp_repo)
    before = tree_digest(tmp_repo)
    engine = DockerEngine()
    engine.overlay = False  # what an engine that cannot mount overlays falls back to
    settings = SandboxConfig(backend="docker", timeout_s=60)
    with DockerSandbox(tmp_repo, settings, engine=engine, image=sandbox_image) as box:
        check = box.check_patch(CALC_DIFF)
        assert check.check_status == "passed", check.output
        shown = box.run(["sh", "-c", "pwd; id -u; cat .env /workspace/.env; echo END"])
        assert shown.stdout.split() == ["/tmp/work", str(OWNER), "END"], shown.stderr
    assert tree_digest(tmp_repo) == before


def test_views_leave_no_scratch_behind(tmp_repo, sandbox_image):
    import tempfile

    from sandbox.docker.repo_view import SCRATCH_PREFIX

    def scratch() -> set[str]:
        prefix = f"{SCRATCH_PREFIX}{os.getpid()}-"
        return {name for name in os.listdir(tempfile.gettempdir()) if name.startswith(prefix)}

    already = scratch()
    with open_docker(tmp_repo) as box:
        assert box.run(["sh", "-c", "echo x > junk && rm pkg/calc.py"]).ok
        assert len(scratch() - already) == 1
    assert scratch() == already


def test_committed_secrets_are_not_in_the_views_object_store(tmp_path, sandbox_image):
    """Issue 28, finding 6: the view's `.git` holds HEAD's files without secrets, nothing
    older; `git cat-file --batch` and every object in the store show no secret."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "app.py").write_text("print('hi')\n")
    (repo / ".env").write_text(f"TOKEN={SECRET}\n")
    (repo / "deploy.key").write_text(PRIVATE_KEY)
    git_init(repo)
    (repo / "deploy.key").unlink()  # removed since, still in the history
    (repo / "app.py").write_text("print('hello')\n")
    (repo / "app.py").chmod(0o666)  # writable by the view's user (nobody: a root-owned repo)
    git(repo, "-c", "user.name=t", "-c", "user.email=t@x.invalid", "commit", "-qam", "two")
    head = git(repo, "rev-parse", "HEAD")
    with open_docker(repo) as box:
        probes = [
            "echo HEAD:.env | git cat-file --batch",
            "git show HEAD~1:deploy.key",
            "git log -p --all",
            "git cat-file --batch-all-objects --batch",
            "git fsck --lost-found --unreachable >/dev/null 2>&1; cat .git/lost-found/*/* ",
        ]
        for probe in probes:
            shown = box.run(["sh", "-c", probe + " 2>&1; echo END"])
            assert SECRET not in shown.stdout and "PRIVATE KEY" not in shown.stdout, probe
            assert shown.stdout.strip().endswith("END"), shown
        assert box.run(["git", "rev-parse", "HEAD"]).stdout.strip() == head
        status = box.run(["git", "status", "--porcelain"])
        assert status.ok and status.stdout.split("\n")[0] == "M  .env", status
        diff = box.run(["sh", "-c", "echo x >> app.py && git diff --stat"])
        assert "app.py | 1 +" in diff.stdout, diff
    # positive control: the repository's own store has both secrets
    assert SECRET in git(repo, "cat-file", "-p", "HEAD:.env")
    assert "PRIVATE KEY" in git(repo, "show", "HEAD~1:deploy.key")
