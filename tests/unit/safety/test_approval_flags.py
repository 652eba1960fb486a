"""Approval questions point out configuration files and hidden characters (table tests)."""

from __future__ import annotations

import pytest

from safety.approval_flags import configuration_paths, hidden_characters, patch_flags, visible

CONFIG = [
    ".lsp-agent/policy.toml",
    ".lsp-agent/memory/notes.md",
    ".env",
    ".env.local",
    ".env.example",
    "app/.env",
    "app/.env.production",
    ".envrc",
    ".vscode/settings.json",
    ".vscode/tasks.json",
    ".vscode/launch.json",
    ".VSCode/Settings.json",
    ".idea/workspace.xml",
    ".nvim.lua",
    ".exrc",
    ".gitattributes",
    "sub/.gitattributes",
    ".gitmodules",
    ".pre-commit-config.yaml",
    "AGENTS.md",
]
NOT_CONFIG = [
    "src/app.py",
    "README.md",
    "environment.py",
    "docs/vscode.md",
    "lsp-agent/policy.toml",
    "envrc.txt",
    "src/settings.json",
    "gitattributes.md",
]


@pytest.mark.parametrize("path", CONFIG)
def test_configuration_files_are_recognised(path: str) -> None:
    assert configuration_paths([path]) == [path]


@pytest.mark.parametrize("path", NOT_CONFIG)
def test_ordinary_files_are_not_flagged(path: str) -> None:
    assert configuration_paths([path]) == []


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("rm -rf /\x1b[2K\x1b[1A", "rm -rf /\\x1b[2K\\x1b[1A"),
        ("ok\rsafe", "ok\\x0dsafe"),
        ("if admin\u202e {", "if admin\\u202e {"),
        ("a\u2066b\u2069", "a\\u2066b\\u2069"),
        ("zero\u200bwidth", "zero\\u200bwidth"),
        ("csi\x9b2K", "csi\\x9b2K"),
        ("tab\tand\nnewline stay", "tab\tand\nnewline stay"),
        ("ünïcödé and [bold]markup[/bold]", "ünïcödé and [bold]markup[/bold]"),
    ],
)
def test_visible_escapes_what_could_hide_text(text: str, shown: str) -> None:
    assert visible(text) == shown


def test_hidden_characters_are_named_once() -> None:
    names = hidden_characters("a\u202eb\u202ec\x1b")
    assert names == ["\\u202e RIGHT-TO-LEFT OVERRIDE", "\\x1b CONTROL CHARACTER"]


def test_patch_flags_name_config_files_and_hidden_characters() -> None:
    diff = "--- a/.vscode/settings.json\n+++ b/.vscode/settings.json\n@@ -1 +1 @@\n-a\n+b\u202e\n"
    flags = patch_flags(diff, [".vscode/settings.json"])
    assert len(flags) == 2
    assert "CHANGES AGENT/EDITOR CONFIGURATION: .vscode/settings.json" in flags[0]
    assert "RIGHT-TO-LEFT OVERRIDE" in flags[1]
    assert patch_flags("--- a/x.py\n+++ b/x.py\n", ["x.py"]) == []
