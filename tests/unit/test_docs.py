"""The README and docs cannot drift from the code: each claim here is checked."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from lsp_agent.cli.main import build_parser
from lsp_agent.settings import env_example, env_keys, markdown_table

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def code_blocks(text: str, languages: tuple[str, ...]) -> list[str]:
    pattern = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
    return [m.group(2) for m in pattern.finditer(text) if m.group(1) in languages]


def quick_start_block() -> list[str]:
    section = README.split("## Quick start", 1)[1]
    block = section.split("```", 2)[1]
    return [line for line in block.splitlines()[1:] if line.strip()]


def test_quick_start_has_exactly_two_commands_demo_first_tests_second() -> None:
    lines = quick_start_block()
    assert len(lines) == 2
    assert "lsp-agent demo" in lines[0]
    assert "tests/check.sh" in lines[1]
    assert (ROOT / "tests" / "check.sh").is_file()


def test_ci_runs_the_readme_test_command_by_reading_it() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "## Quick start" in ci and 'eval "$test_command"' in ci


def test_settings_table_matches_the_settings_object() -> None:
    table = README.split("<!-- settings-table:start -->\n", 1)[1].split(
        "\n<!-- settings-table:end -->", 1
    )[0]
    assert table == markdown_table(), "regenerate with lsp_agent.settings.markdown_table()"


def test_env_example_matches_the_settings_object() -> None:
    assert (ROOT / ".env.example").read_text(encoding="utf-8") == env_example()


def shell_lines() -> list[str]:
    lines = []
    for doc in DOCS:
        for block in code_blocks(doc.read_text(encoding="utf-8"), ("sh", "bash", "console")):
            for raw in block.splitlines():
                line = raw.split("#", 1)[0].strip().removeprefix("$ ")
                if line:
                    lines.append(line)
    return lines


def lsp_agent_invocations() -> list[list[str]]:
    found = []
    for line in shell_lines():
        for part in re.split(r"&&|;", line):
            words = shlex.split(part)
            while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
                words.pop(0)
            if words[:2] == ["uv", "run"]:
                words = words[2:]
            if words and words[0] == "lsp-agent":
                found.append(words[1:])
    return found


@pytest.mark.parametrize("argv", lsp_agent_invocations(), ids=" ".join)
def test_documented_commands_parse(argv: list[str]) -> None:
    build_parser().parse_args(argv)


def test_documented_environment_keys_exist() -> None:
    keys = set(env_keys())
    for line in shell_lines():
        for key in re.findall(r"\b([A-Z][A-Z_]+)=", line):
            assert key in keys, f"{key} in docs is not a setting"


@pytest.mark.parametrize(
    "source",
    [b for doc in DOCS for b in code_blocks(doc.read_text(encoding="utf-8"), ("python",))],
)
def test_python_examples_run(source: str) -> None:
    exec(compile(source, "<docs>", "exec"), {})
