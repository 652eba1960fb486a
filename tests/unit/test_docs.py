"""The README and docs cannot drift from the code: each claim here is checked.

The README is a newcomer's page (what it is, the two Quick start commands, editor set-up, which
model, links); everything else is in docs/ pages, every one linked from the README."""

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
CONFIGURATION = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
BENCHMARKS_PAGE = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
README_MAX_WORDS = 1000  # read in five minutes


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
    table = CONFIGURATION.split("<!-- settings-table:start -->\n", 1)[1].split(
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


def github_anchor(heading: str) -> str:
    """The id GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    found: set[str] = set()
    outside_code = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    for heading in re.findall(r"^#{1,6} (.+)$", outside_code, re.M):
        anchor = github_anchor(heading)
        n = 0
        while (anchor if n == 0 else f"{anchor}-{n}") in found:
            n += 1
        found.add(anchor if n == 0 else f"{anchor}-{n}")
    return found


def relative_links(doc: Path) -> list[tuple[str, str]]:
    """(target path, anchor) of each relative link and image outside code."""
    text = re.sub(r"^```.*?^```", "", doc.read_text(encoding="utf-8"), flags=re.S | re.M)
    links = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        links.append((path, anchor))
    return links


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.name)
def test_relative_links_and_their_anchors_exist(doc: Path) -> None:
    for path, anchor in relative_links(doc):
        target = (doc.parent / path).resolve() if path else doc
        assert target.exists(), f"{doc.name}: link to {path}, which does not exist"
        if anchor:
            assert target.suffix == ".md", f"{doc.name}: anchor #{anchor} in {path}"
            assert anchor in anchors(target.read_text(encoding="utf-8")), (
                f"{doc.name}: {path or doc.name} has no heading for #{anchor}"
            )


def test_the_readme_links_every_docs_page_and_stays_short() -> None:
    linked = {path for path, _ in relative_links(ROOT / "README.md")}
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"docs/{page.name}" in linked, f"README does not link docs/{page.name}"
    words = len(re.sub(r"^```.*?^```", "", README, flags=re.S | re.M).split())
    assert words <= README_MAX_WORDS, f"README has {words} words; move detail to docs/"


def test_the_readme_keeps_a_newcomers_sections() -> None:
    headings = re.findall(r"^## (.+)$", README, re.M)
    assert headings[:2] == ["Quick start", "Set up your editor"]
    assert "Pick your model" in headings
    for editor in ("VS Code", "Neovim", "Other LSP clients", "Agent panels over ACP"):
        assert f"**{editor}**" in README, editor


def test_every_bench_has_its_figures_in_the_benchmarks_page() -> None:
    from lsp_agent.benchmarks.runner import BENCHMARKS

    for name in BENCHMARKS:
        assert f"`{name}`" in BENCHMARKS_PAGE or f"bench {name}" in BENCHMARKS_PAGE, name
