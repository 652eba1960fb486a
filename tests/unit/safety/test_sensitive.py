"""Sensitive files by class: a corpus of names that must be refused and names that must not.

Classes: environment files (not their templates), Terraform variables and state, cloud
credentials and service-account JSON, package-manager auth files, keys, keystores and
keytabs, kubeconfigs, shell histories. Private keys are refused by content whatever the
name; a certificate in `ca.pem` and a public key are readable; a regular file with several
hard links is refused (it could be a key elsewhere on the machine).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from safety.errors import ErrorType, ValidationError
from safety.sensitive import DEFAULT_SENSITIVE
from safety.validation import validate_path

SENSITIVE = [
    ".env",
    ".ENV",
    ".env.local",
    ".env.production",
    ".env.development.local",
    "app/.env.staging",
    "prod.env",
    "config/docker.env",
    ".envrc",
    "terraform.tfvars",
    "prod.auto.tfvars",
    "vars.tfvars.json",
    "infra/terraform.tfstate",
    "terraform.tfstate.backup",
    ".terraformrc",
    "my-project-service-account.json",
    "gcp_service_account_key.json",
    "deploy-sa-key.json",
    "client_secret_1234.apps.googleusercontent.com.json",
    "application_default_credentials.json",
    "credentials.json",
    ".aws/credentials",
    "home/.azure/accessTokens.json",
    "azureProfile.json",
    ".config/gcloud/credentials.db",
    ".npmrc",
    "frontend/.npmrc",
    ".yarnrc.yml",
    ".yarnrc",
    ".pypirc",
    "pip.conf",
    ".netrc",
    ".git-credentials",
    ".docker/config.json",
    ".cargo/credentials.toml",
    "id_rsa",
    "id_ed25519",
    "server.key",
    "tls/private.p8",
    "store.p12",
    "cert.pfx",
    "release.keystore",
    "app.jks",
    "secrets.jceks",
    "android.bks",
    "krb5.keytab",
    "http.keytab",
    "putty.ppk",
    "kubeconfig",
    "kubeconfig.yaml",
    "kubeconfig-prod",
    "cluster.kubeconfig",
    ".kube/config",
    ".pgpass",
    ".htpasswd",
    ".bash_history",
    "vault.kdbx",
    # round 3: application secrets, Ansible vault passwords, and copies of secrets
    ".envs/.production/.django",
    ".envs/.local/.postgres",
    "config/database.yml",
    "config/secrets.yml",
    ".streamlit/secrets.toml",
    "local.settings.json",
    "config/master.key",
    "wp-config.php",
    "android/key.properties",
    ".vault_pass",
    "ansible/.vault_pass.txt",
    "vault-password.txt",
    ".npmrc.bak",
    ".env~",
    "#.env#",
    ".#.env",
    ".env.swp",
    "..env.swp",
    ".pypirc.orig",
    "credentials.json.bak",
    ".aws/credentials.old",
    ".docker/config.json~",
    "terraform.tfstate.1700000000.backup",
    "id_rsa.bak",
    "serviceAccountKey.json",
    "firebase-adminsdk-x1y2.json",
    "office.ovpn",
    "rclone.conf",
    ".mylogin.cnf",
    "server.key",
]
NOT_SENSITIVE = [
    ".env.example",
    ".env.sample",
    ".env.template",
    "app/.env.example",
    "prod.env.example",
    "environment.py",
    "src/env.py",
    "envs/README.md",
    "dotenv_loader.py",
    "id_rsa.pub",
    "id_ed25519.pub",
    "keys/deploy.pub",
    "main.tf",
    "variables.tf",
    "outputs.tf",
    "terraform.lock.hcl",
    "package.json",
    "package-lock.json",
    "yarn.lock",
    ".yarnrc.yml.md",
    "pyproject.toml",
    "requirements.txt",
    "setup.cfg",
    "service.py",
    "account.json",
    "tsconfig.json",
    ".eslintrc.json",
    "keyboard.py",
    "keys.py",
    "monkey.txt",
    "tokenizer.py",
    "credentials.py",
    "docs/secrets-management.md",
    "deployment.yaml",
    "values.yaml",
    "kube_utils.py",
    "Makefile",
    ".gitignore",
    ".github/workflows/ci.yml",
    "history.md",
    "src/config.ts",
    "Dockerfile",
    # round 3: source files named like configurations, templates of secrets, .git's plain files
    "kubeconfig.go",
    "pkg/kubeconfig/kubeconfig_test.go",
    "id_rsa.go",
    "secring.rs",
    ".env.js",
    ".env.local.example",
    ".env.production.template",
    ".env.staging.tmpl",
    ".env.dist",
    ".env.defaults",
    "example.env",
    "config/database.yml.example",
    "config/database.yml.sample",
    "terraform.tfvars.example",
    "credentials.json.template",
    ".npmrc.example",
    ".env.example~",
    "README.md.bak",
    "main.py~",
    ".bashrc.swp",
    ".git/info/exclude",
    ".git/HEAD",
    "vendor/lib/.git/description",
]


@pytest.mark.parametrize("path", SENSITIVE)
def test_sensitive_names_are_refused(path: str) -> None:
    assert DEFAULT_SENSITIVE.match(path) is not None


@pytest.mark.parametrize("path", NOT_SENSITIVE)
def test_ordinary_names_are_not(path: str) -> None:
    assert DEFAULT_SENSITIVE.match(path) is None


def test_the_corpus_has_forty_names_each_way() -> None:
    assert len(set(SENSITIVE)) >= 80 and len(set(NOT_SENSITIVE)) >= 60


KEY = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----\n"
CERT = "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE\n-----END CERTIFICATE-----\n"


def refused(root: Path, path: str) -> str:
    with pytest.raises(ValidationError) as info:
        validate_path(root, path)
    assert info.value.error_type is ErrorType.SENSITIVE_PATH
    return str(info.value)


@pytest.mark.parametrize("name", ["notes.txt", "backup", "fixtures/data.json", "key.pem"])
def test_a_private_key_is_refused_by_content_whatever_its_name(tmp_path: Path, name: str) -> None:
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text("header\n" + KEY)
    assert "private key" in refused(tmp_path, name) or name.endswith(".pem")


def test_a_service_account_json_with_an_escaped_key_is_refused(tmp_path: Path) -> None:
    (tmp_path / "gcp.json").write_text(
        '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIE\\n'
        '-----END PRIVATE KEY-----\\n"}'
    )
    assert "private key" in refused(tmp_path, "gcp.json")


def test_a_certificate_in_ca_pem_and_a_public_key_are_readable(tmp_path: Path) -> None:
    (tmp_path / "ca.pem").write_text(CERT)
    (tmp_path / "id_rsa.pub").write_text("ssh-rsa AAAAB3NzaC1yc2E user@host\n")
    assert validate_path(tmp_path, "ca.pem") == (tmp_path / "ca.pem").resolve()
    assert validate_path(tmp_path, "id_rsa.pub").name == "id_rsa.pub"


def test_a_pem_that_does_not_exist_yet_stays_sensitive_by_name(tmp_path: Path) -> None:
    refused(tmp_path, "new.pem")


def test_a_file_with_several_hard_links_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    root = tmp_path / "ws"
    outside.mkdir()
    root.mkdir()
    (outside / "id_rsa_copy").write_text("not obviously a key\n")
    os.link(outside / "id_rsa_copy", root / "notes.txt")
    assert "hard links" in refused(root, "notes.txt")
    (root / "plain.txt").write_text("fine\n")
    assert validate_path(root, "plain.txt").name == "plain.txt"


KEYNOTE = b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + b"\x00" * 64


def test_a_keynote_document_named_talk_key_is_readable(tmp_path: Path) -> None:
    (tmp_path / "talk.key").write_bytes(KEYNOTE)
    assert validate_path(tmp_path, "talk.key").name == "talk.key"


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("server.key", KEY),
        ("master.key", "0123456789abcdef0123456789abcdef\n"),
        ("api.key", "sk-live-abcdef\n"),
        ("talk.key.bak", "PK"),
    ],
)
def test_a_key_file_that_is_not_a_zip_archive_is_refused(
    tmp_path: Path, name: str, content: str
) -> None:
    (tmp_path / name).write_text(content)
    refused(tmp_path, name)


def test_a_key_that_does_not_exist_yet_stays_sensitive(tmp_path: Path) -> None:
    refused(tmp_path, "talk.key")


def test_the_command_policy_reads_a_keynote_but_not_a_key(tmp_path: Path) -> None:
    from safety.policy import CommandPolicy

    (tmp_path / "talk.key").write_bytes(KEYNOTE)
    (tmp_path / "server.key").write_text(KEY)
    (tmp_path / "ca.pem").write_text(CERT)
    policy = CommandPolicy(workspace_root=tmp_path)
    assert policy.evaluate("cat talk.key").allowed
    assert policy.evaluate("cat ca.pem").allowed
    assert policy.evaluate("cat server.key").rule == "path.sensitive"
    assert policy.evaluate("cat missing.key").rule == "path.sensitive"
    assert CommandPolicy().evaluate("cat talk.key").rule == "path.sensitive"
