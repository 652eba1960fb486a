"""What the sandbox hides and how it lays out a repository's views (no engine needed)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sandbox.docker.client import remote_engine
from sandbox.docker.repo_secrets import is_secret, sanitize_git_config, scan
from sandbox.docker.repo_view import NOBODY, build_view, container_user, overlay_possible

HIDDEN = [
    ".env",
    ".env.local",
    ".env.production",
    "app/.env.development",
    "prod.env",
    ".envrc",
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".git-credentials",
    "credentials.json",
    "config/credentials",
    "client_secret_123.json",
    "gcp-service-account-prod.json",
    "id_rsa",
    "id_ed25519",
    "deploy/server.key",
    "store.jks",
    "release.keystore",
    "cert.p12",
    "terraform.tfstate",
    ".aws/credentials",
    ".ssh/config",
    ".kube/config",
    ".docker/config.json",
    ".npmrc.bak",
    ".env~",
    ".env.swp",
    ".envs/.production/.django",
    "config/database.yml",
    "local.settings.json",
    ".vault_pass",
]
KEPT = [
    ".env.example",
    ".env.sample",
    ".env.template",
    "config.env.dist",
    "id_rsa.pub",
    "README.md",
    "src/env.py",
    "environment.yml",
    "settings.toml",
    "tests/test_credentials_parser.py",
    "kubeconfig.go",
    ".env.local.example",
    ".env.production.template",
]


@pytest.mark.parametrize("name", HIDDEN)
def test_secret_files_are_hidden(tmp_path, name):
    path = tmp_path / "file"
    path.write_text("KEY=1\n")
    assert is_secret(name, str(path))


@pytest.mark.parametrize("name", KEPT)
def test_ordinary_and_example_files_are_kept(tmp_path, name):
    path = tmp_path / "file"
    path.write_text("KEY=changeme\n")
    assert not is_secret(name, str(path))


def test_pem_files_are_hidden_by_content(tmp_path):
    cert = tmp_path / "ca.pem"
    cert.write_text("-----BEGIN CERTIFICATE-----\nMII\n-----END CERTIFICATE-----\n")
    key = tmp_path / "key.pem"
    key.write_text("-----BEGIN RSA PRIVATE KEY-----\nMII\n-----END RSA PRIVATE KEY-----\n")
    assert not is_secret("tls/ca.pem", str(cert))
    assert is_secret("tls/key.pem", str(key))


def test_git_config_loses_credentials_but_keeps_the_remote():
    config = (
        '[remote "origin"]\n'
        "\turl = https://bot:ghp_abc123@github.com/o/r.git\n"
        "\tpushurl = ssh://git@github.com/o/r.git\n"
        '[http "https://github.com/"]\n'
        "\textraheader = AUTHORIZATION: basic c2VjcmV0\n"
        "[custom]\n\tapiToken = s3cret\n\tname = kept\n"
    )
    clean = sanitize_git_config(config)
    assert "url = https://github.com/o/r.git" in clean
    assert "pushurl = ssh://github.com/o/r.git" in clean
    assert "ghp_abc123" not in clean and "c2VjcmV0" not in clean and "s3cret" not in clean
    assert "name = kept" in clean


def test_scan_skips_vendored_trees_and_finds_nested_secrets(tmp_path):
    (tmp_path / "svc" / "api").mkdir(parents=True)
    (tmp_path / "svc" / "api" / ".env").write_text("X=1")
    (tmp_path / "node_modules" / "pkg").mkdir(parents=True)
    (tmp_path / "node_modules" / "pkg" / ".env").write_text("X=1")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[remote]\n\turl = https://u:p@h/r\n")
    found = scan(tmp_path)
    assert found.secrets == ["svc/api/.env"]
    assert found.git_configs == {".git/config": "[remote]\n\turl = https://h/r\n"}
    assert "svc/api" in found.directories and "node_modules" not in found.directories


def test_the_container_user_is_the_owner_or_nobody(tmp_path):
    info = os.stat(tmp_path)
    expected = NOBODY if info.st_uid == 0 else (info.st_uid, info.st_gid)
    assert container_user(tmp_path) == expected
    if os.geteuid() == 0:
        os.chown(tmp_path, 1000, 1001)
        assert container_user(tmp_path) == (1000, 1001)


def test_overlay_views_cover_secrets_and_leave_the_repository_alone(tmp_path):
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / ".env").write_text("TOKEN=x")
    (repo / "pkg" / "a.py").write_text("A = 1\n")
    view = build_view(repo, overlay=True, trees=2)
    try:
        assert view.tree_paths == ["/sandbox/tree-0", "/sandbox/tree-1"]
        assert view.scratch is not None
        for index, mount in enumerate(view.mounts):
            options = mount["VolumeOptions"]["DriverConfig"]["Options"]
            upper = view.scratch / f"upper-{index}"
            assert options["o"] == (
                f"lowerdir={repo},upperdir={upper},workdir={view.scratch / f'work-{index}'}"
            )
            assert (upper / ".env").read_text() == ""
        assert not view.binds
    finally:
        scratch = view.scratch
        view.close()
    assert scratch is not None and not scratch.exists()
    assert (repo / ".env").read_text() == "TOKEN=x"


def test_copy_mode_covers_secrets_with_read_only_binds(tmp_path):
    (tmp_path / ".env").write_text("TOKEN=x")
    view = build_view(tmp_path, overlay=False)
    try:
        targets = {bind["bind"]: source for source, bind in view.binds.items()}
        assert targets["/workspace"] == str(tmp_path)
        assert Path(targets["/workspace/.env"]).read_text() == ""
        assert all(bind["mode"] == "ro" for bind in view.binds.values())
    finally:
        view.close()


def test_paths_overlay_options_cannot_carry_use_the_copy():
    assert overlay_possible(Path("/home/me/repo"))
    assert not overlay_possible(Path("/home/me/a,b"))
    assert not overlay_possible(Path("/home/me/a:b"))


class _Api:
    def __init__(self, base_url: str) -> None:
        self.base_url = base_url


class _Client:
    def __init__(self, base_url: str) -> None:
        self.api = _Api(base_url)


@pytest.mark.parametrize(
    ("base_url", "remote"),
    [
        ("http+docker://localhost", False),
        ("http+docker://localnpipe", False),
        ("http://127.0.0.1:2375", False),
        ("http://localhost:2375", False),
        ("https://build-box.example:2376", True),
        ("http://10.0.0.5:2375", True),
        ("http+docker://ssh", True),
    ],
)
def test_remote_engines_are_recognised(base_url, remote, monkeypatch):
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    assert (remote_engine(_Client(base_url)) is not None) == remote


def test_scratch_of_dead_processes_is_removed(tmp_path):
    from sandbox.docker.repo_view import SCRATCH_PREFIX, remove_orphans

    dead = next(pid for pid in range(4_000_000, 3_000_000, -1) if not _alive(pid))
    orphan = tmp_path / f"{SCRATCH_PREFIX}{dead}-abc"
    (orphan / "upper-0" / "pkg").mkdir(parents=True)
    (orphan / "upper-0" / "pkg" / "x.py").write_text("x")
    mine = tmp_path / f"{SCRATCH_PREFIX}{os.getpid()}-def"
    mine.mkdir()
    assert remove_orphans(str(tmp_path)) == [orphan]
    assert not orphan.exists() and mine.exists()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
