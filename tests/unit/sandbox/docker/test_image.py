"""The image recipe, its content-versioned tag, and the builder's refusals."""

from __future__ import annotations

import re
import shutil

import pytest

import sandbox.docker.image_builder as builder
from sandbox.config import SandboxConfig
from sandbox.docker import image


def test_tag_is_a_twelve_hex_content_version():
    assert re.fullmatch(r"lsp-agent-sandbox:[0-9a-f]{12}", image.default_image_tag())
    assert image.image_tag(SandboxConfig()) == image.default_image_tag()
    assert image.image_tag(None) == image.default_image_tag()
    assert image.image_tag(SandboxConfig(image="mine:2")) == "mine:2"


def test_tag_changes_with_the_recipe(tmp_path, monkeypatch):
    before = image.recipe_version()
    copy = tmp_path / "packages.txt"
    shutil.copy(image.PACKAGES_FILE, copy)
    copy.write_text(copy.read_text() + "curl\n")
    monkeypatch.setattr(image, "PACKAGES_FILE", copy)
    image.recipe_version.cache_clear()
    try:
        assert image.recipe_version() != before
    finally:
        monkeypatch.undo()
        image.recipe_version.cache_clear()
    assert image.recipe_version() == before


def test_recipe_has_what_checks_need():
    assert {"git", "python3", "python3-pytest"} <= set(image.packages())
    script = image.ROOTFS_SCRIPT.read_text()
    assert "--variant=minbase" in script
    assert "bookworm" in script
    dockerfile = image.DOCKERFILE.read_text()
    assert "USER 65534:65534" in dockerfile
    assert "pytest" in dockerfile
    assert "git" in dockerfile
    assert "USER 65534:65534" in image.IMPORT_CHANGES


def test_image_exists_is_false_without_an_engine(monkeypatch):
    from sandbox.docker.client import EngineUnavailable

    def no_engine(*args, **kwargs):
        raise EngineUnavailable("no engine")

    monkeypatch.setattr(image, "connect", no_engine)
    assert image.image_exists("anything:1") is False


def test_offline_build_refuses_without_debootstrap(monkeypatch):
    monkeypatch.setattr(builder, "_on_path", lambda name: False)
    with pytest.raises(builder.BuildError, match="debootstrap is not installed"):
        builder._check_offline_prerequisites()


def test_offline_build_refuses_without_root(monkeypatch):
    monkeypatch.setattr(builder, "_on_path", lambda name: True)
    monkeypatch.setattr(builder.os, "geteuid", lambda: 1000)
    with pytest.raises(builder.BuildError, match="needs root"):
        builder._check_offline_prerequisites()


def test_build_without_engine_is_a_build_error(monkeypatch):
    from sandbox.docker.client import EngineUnavailable

    def no_engine(*args, **kwargs):
        raise EngineUnavailable("cannot reach the Docker engine")

    monkeypatch.setattr(builder, "connect", no_engine)
    with pytest.raises(builder.BuildError, match="cannot reach"):
        builder.build_image()


def test_both_recipes_have_npm_and_write_the_same_node_preload():
    assert {"nodejs", "npm"} <= set(image.packages())
    dockerfile = image.DOCKERFILE.read_text()
    script = image.ROOTFS_SCRIPT.read_text()
    assert re.search(r"apt-get install [^\n]*\bnodejs npm\b", dockerfile)
    # apt inside the debootstrapped root resolves npm's virtual packages.
    assert re.search(r"in_root apt-get install [^\n]*\$packages", script)
    preload = r"printf '%s\\n' '([^']+)' > \S*/usr/lib/lsp-agent/node-hermetic\.js"
    ours, theirs = re.findall(preload, script), re.findall(preload, dockerfile)
    assert len(ours) == 1 and ours == theirs
    assert "_resolveLookupPaths" in ours[0]
