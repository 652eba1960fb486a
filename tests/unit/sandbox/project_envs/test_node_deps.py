"""Reading and vetting a project's Node dependencies (the repository is untrusted)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sandbox.project_envs.envs import plan_project, project_status
from sandbox.project_envs.node_deps import (
    NPMJS,
    allowed_prefixes,
    declared_node,
    lock_entries,
    node_dependency_key,
)

MINE = "https://npm.example.test/repository/npm/"
MANIFEST = {"name": "n", "version": "1.0.0", "dependencies": {"is-number": "^7.0.0"}}


def lock(**entries: dict) -> dict:
    packages = {"": {"name": "n", "version": "1.0.0"}}
    packages.update({f"node_modules/{name}": entry for name, entry in entries.items()})
    return {"name": "n", "lockfileVersion": 3, "requires": True, "packages": packages}


def repo(root: Path, manifest: object = MANIFEST, lock_data: object = None, **extra: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text(json.dumps(manifest))
    if lock_data is not None:
        (root / "package-lock.json").write_text(json.dumps(lock_data))
    for name, text in extra.items():
        (root / name).write_text(text)
    return root


def test_a_lock_from_the_users_registry_is_accepted(tmp_path):
    root = repo(
        tmp_path,
        lock_data=lock(
            **{
                "is-number": {"version": "7.0.0", "resolved": f"{MINE}is-number/-/x.tgz"},
                "kind-of": {"version": "6.0.3", "resolved": f"{NPMJS}kind-of/-/kind-of.tgz"},
                "left-pad": {"version": "1.3.0", "hasInstallScript": True},  # no resolved
            }
        ),
    )
    found = declared_node(root, [MINE])
    assert found.refusal == ""
    assert (found.files, found.lock) == (["package.json", "package-lock.json"], "package-lock.json")
    assert (found.packages, found.install_scripts) == (3, 1)


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ({"version": "7.0.0", "resolved": "http://127.0.0.1:8765/is-number.tgz"}, "not your npm"),
        ({"version": "7.0.0", "resolved": "https://evil.example/is-number.tgz"}, "not your npm"),
        ({"version": "7.0.0", "resolved": "git+ssh://git@github.com/a/b.git#abc"}, "not your npm"),
        ({"version": "7.0.0", "resolved": "file:../../outside"}, "not your npm"),
        ({"resolved": "packages/local", "link": True}, "local link"),
        ({"version": "file:../x"}, "not from a registry"),
        ({"version": "1", "resolved": f"{NPMJS}../../evil/x.tgz"}, "not a plain registry URL"),
    ],
)
def test_a_lock_entry_that_points_elsewhere_is_refused(tmp_path, entry, why):
    root = repo(tmp_path, lock_data=lock(**{"is-number": entry}))
    refusal = declared_node(root, [NPMJS]).refusal
    assert refusal.startswith("refused, nothing was downloaded")
    assert "node_modules/is-number" in refusal and why in refusal


@pytest.mark.parametrize(
    "spec",
    [
        "file:../secrets",
        "git+https://example.test/x.git",
        "github:user/repo",
        "user/repo",
        "https://example.test/x.tgz",
        "link:../x",
        "npm:@scope/x",
    ],
)
def test_a_manifest_spec_that_is_not_a_registry_version_is_refused(tmp_path, spec):
    manifest = dict(MANIFEST, devDependencies={"x": spec})
    root = repo(tmp_path, manifest, lock_data=lock(**{"is-number": {"version": "7.0.0"}}))
    assert f"package.json: x@{spec}" in declared_node(root, [NPMJS]).refusal


@pytest.mark.parametrize("spec", ["^1.2.3", "~1.2", "1.x", ">=1 <2", "latest", "*", "npm:x@^1"])
def test_registry_specs_are_fine(tmp_path, spec):
    manifest = dict(MANIFEST, devDependencies={"x": spec})
    root = repo(tmp_path, manifest, lock_data=lock(**{"x": {"version": "1.2.3"}}))
    assert declared_node(root, [NPMJS]).refusal == ""


@pytest.mark.parametrize(
    ("other", "says"),
    [
        ("yarn.lock", "yarn.lock (yarn) is not supported"),
        ("pnpm-lock.yaml", "pnpm-lock.yaml (pnpm) is not supported"),
        (None, "no lock file"),
    ],
)
def test_without_an_npm_lock_prepare_says_what_to_do(tmp_path, other, says):
    extra = {other: "# lock\n"} if other else {}
    root = repo(tmp_path, **extra)
    refusal = declared_node(root, [NPMJS]).refusal
    assert refusal.startswith(says)
    assert "npm install --package-lock-only --ignore-scripts" in refusal


def test_workspaces_are_refused(tmp_path):
    manifest = dict(MANIFEST, workspaces=["packages/*"])
    root = repo(tmp_path, manifest, lock_data=lock())
    assert "workspaces" in declared_node(root, [NPMJS]).refusal


def test_a_v1_lock_is_walked_with_its_nested_dependencies(tmp_path):
    v1 = {
        "lockfileVersion": 1,
        "dependencies": {
            "a": {
                "version": "1.0.0",
                "resolved": f"{NPMJS}a/-/a-1.0.0.tgz",
                "dependencies": {"b": {"version": "2.0.0", "resolved": "http://127.0.0.1:1/b.tgz"}},
            }
        },
    }
    assert [name for name, _ in lock_entries(v1)] == ["a", "a>b"]
    root = repo(tmp_path, lock_data=v1)
    assert "a>b resolves to 'http://127.0.0.1:1/b.tgz'" in declared_node(root, [NPMJS]).refusal


def test_allowed_prefixes_are_the_users_registries_and_npmjs():
    assert allowed_prefixes(["https://mirror.test/npm"]) == (
        "https://mirror.test/npm/",
        NPMJS,
    )
    assert allowed_prefixes(["not a url"]) == (NPMJS,)


def test_the_key_follows_the_manifest_and_the_lock(tmp_path):
    assert node_dependency_key(repo(tmp_path / "none", {"name": "n"})) is None
    root = repo(tmp_path / "r", lock_data=lock(**{"is-number": {"version": "7.0.0"}}))
    first = node_dependency_key(root)
    assert first is not None and len(first) == 16
    (root / "package-lock.json").write_text(json.dumps(lock(**{"is-number": {"version": "7.0.1"}})))
    assert node_dependency_key(root) != first


def test_the_plan_describes_the_node_part_and_status_says_it_is_not_prepared(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    root = repo(tmp_path / "r", lock_data=lock(**{"is-number": {"version": "7.0.0"}}))
    planned = plan_project(root)
    assert planned is not None and planned.python is None and planned.node is not None
    text = "\n".join(planned.describe())
    assert "npm ci --ignore-scripts" in text and "no network" in text
    assert ".npmrc is not read" in text
    assert not planned.ready
    status = project_status(root)
    assert status.startswith("node: not prepared") and "lsp-agent sandbox prepare" in status

    refused = repo(tmp_path / "y", **{"yarn.lock": "# yarn\n"})
    assert project_status(refused).startswith("node: cannot prepare (yarn.lock (yarn)")
    assert project_status(tmp_path / "data") == "no declared dependencies (Python or Node)"
