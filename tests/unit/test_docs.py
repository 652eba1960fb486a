"""The README and docs cannot drift from the code: each claim here is checked."""

from __future__ import annotations

import ast
import functools
import importlib.util
import os
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


# docs/architecture.md names modules: every one it names must be in the tree.

ARCHITECTURE = ROOT / "docs" / "architecture.md"
TOP_DIRS = ("lsp_agent", "tools", "safety", "sandbox", "tests", "editors", "docs")
SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache"}
NOT_PYTHON = {"toml", "json", "env", "md", "lock", "gguf", "sh", "tsv", "txt", "ini", "lua", "ts"}
PY_PATH = re.compile(r"(?<![\w/.-])([\w/.-]*\w\.py)\b")
TREE_PATH = re.compile(rf"(?<![\w/.-])((?:{'|'.join(TOP_DIRS)})(?:/[\w.-]+)+/?)")
CODE_SPAN = re.compile(r"`([^`]+)`")
# `a.b`, `a/b.c` (a module's path, then a name in it), optionally called: `a.b(...)`.
DOTTED = re.compile(r"([A-Za-z_]\w*(?:/[A-Za-z_]\w*)*(?:\.[A-Za-z_]\w*)+)(?:\(.*\))?")


@functools.cache
def repo_files() -> tuple[str, ...]:
    """The repository's files and folders (folders end with `/`), relative POSIX paths."""
    found = []
    for top in TOP_DIRS:
        for current, dirs, files in os.walk(ROOT / top):
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
            base = Path(current).relative_to(ROOT).as_posix()
            found.append(base + "/")
            found += [f"{base}/{name}" for name in files]
    return tuple(found)


@functools.cache
def names_in(path: Path) -> dict[str, set[str]]:
    """A module's top-level names (functions, classes, assignments, imports, `__all__`),
    each with its members when it is a class (`self.x = ...` included); names under `if`
    (type-checking imports) and `try` count."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: dict[str, set[str]] = {}

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names[node.name] = set()
            elif isinstance(node, ast.ClassDef):
                members = names.setdefault(node.name, set())
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        members.add(item.name)
                        members.update(  # instance attributes: `self.name = ...`
                            target.attr
                            for inner in ast.walk(item)
                            for target in (
                                inner.targets
                                if isinstance(inner, ast.Assign)
                                else [inner.target]
                                if isinstance(inner, ast.AnnAssign)
                                else []
                            )
                            if isinstance(target, ast.Attribute)
                            and isinstance(target.value, ast.Name)
                            and target.value.id == "self"
                        )
                    elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        members.add(item.target.id)
                    elif isinstance(item, ast.Assign):
                        members.update(t.id for t in item.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        names.setdefault(target.id, set())
                    if isinstance(target, ast.Name) and target.id == "__all__":
                        value = ast.literal_eval(node.value)
                        names.update({str(name): set() for name in value})
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.setdefault(node.target.id, set())
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    names.setdefault((alias.asname or alias.name).split(".")[0], set())
            elif isinstance(node, (ast.If, ast.Try)):
                visit(node.body + node.orelse + getattr(node, "finalbody", []))

    visit(tree.body)
    return names


def python_modules(files: tuple[str, ...]) -> dict[str, Path]:
    modules = {}
    for file in files:
        if file.endswith(".py"):
            parts = file.removesuffix(".py").split("/")
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = ROOT / file
    return modules


def span_operations() -> set[str]:
    """The `sandbox.<operation>` span names the sandbox opens (`tracing.span("op", ...)`)."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "sandbox").rglob("*.py"))
    return set(re.findall(r"""span\(\s*["'](\w+)["']""", text))


def missing_dotted(name: str, modules: dict[str, Path], spans: set[str]) -> str | None:
    """Why dotted `name` (`safety.policy`, `runtime.run_job`, `models/messages.replay`) names
    nothing in the tree, or None. A name is resolved by its longest leading part that ends a
    module's dotted name (so bare `runtime` is `lsp_agent.agent.runtime`); what follows must
    be a top-level name of that module, then a member of that class. A name whose first part
    is no module of ours is someone else's (`os.write`) when Python can find it; a capitalised
    first part is checked only when it is a class of ours (`Settings.sandbox_config`)."""
    parts = name.replace("/", ".").split(".")
    if parts[-1] in NOT_PYTHON or parts[0] == "tool_wrapped":
        return None  # a file name, or a tool call's span (`tool_wrapped.<tool>`)
    if not re.fullmatch(r"[a-z_][a-z0-9_]*|[A-Z]\w*", parts[0]):
        return None  # camelCase: a protocol's name (`lspAgent.run`), not Python
    if parts[0][0].isupper():
        classes = [
            members
            for path in modules.values()
            for cls, members in names_in(path).items()
            if cls == parts[0] and members
        ]
        if not classes or any(parts[1] in members for members in classes):
            return None
        return f"{parts[0]} has no {parts[1]}"
    for size in range(len(parts), 0, -1):
        prefix = ".".join(parts[:size])
        matches = [p for m, p in modules.items() if m == prefix or m.endswith("." + prefix)]
        if matches:
            break
    else:
        if importlib.util.find_spec(parts[0]) is not None:
            return None
        return "no such module"
    rest = parts[size:]
    if not rest:
        return None
    for path in matches:
        names = names_in(path)
        if rest[0] in names and (len(rest) == 1 or not names[rest[0]] or rest[1] in names[rest[0]]):
            return None
    if parts[0] == "sandbox" and len(parts) == 2 and parts[1] in spans:
        return None  # a span name, `sandbox.<operation>`
    return f"{'.'.join(parts[:size])} has no {'.'.join(rest)}"


def stale_names(text: str, files: tuple[str, ...]) -> list[str]:
    """What `text` names that is not in the tree: `*.py` paths (bare names anywhere in it,
    paths with folders as the end of a real path), folder paths, and dotted names in code."""
    suffixes = {f"/{file}" for file in files}
    modules = python_modules(files)
    operations = span_operations()
    found = []
    for path in sorted(set(PY_PATH.findall(text) + TREE_PATH.findall(text))):
        stem, _, suffix = path.rstrip("/").rpartition("/")[2].rpartition(".")
        if stem and suffix not in NOT_PYTHON | {"py"}:
            continue  # `tools/registry.build_tools`: a name in a module, checked below
        wanted = f"/{path}"
        if not any(s.endswith(wanted) or s.endswith(wanted + "/") for s in suffixes):
            found.append(f"{path}: not in the tree")
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    code = {re.sub(r"\s*\n\s*", "", span) for span in CODE_SPAN.findall(prose)}
    for span in sorted(code):
        if span.endswith("/") and re.fullmatch(r"[\w./-]+", span):
            if not any(s.endswith(f"/{span}") for s in suffixes):
                found.append(f"{span}: no such folder")
            continue
        match = DOTTED.fullmatch(span.strip())
        if match and not match.group(1).endswith(".py"):
            problem = missing_dotted(match.group(1), modules, operations)
            if problem:
                found.append(f"{span}: {problem}")
    return found


def test_the_stale_name_finder_finds_moved_modules() -> None:
    files = repo_files()
    text = (
        "`lsp/server.py` and `agent/runtime.run_job` with `safety.policy` and `os.write(1, x)`, "
        "`sandbox.code_run` spans, `Settings.sandbox_config()`, `AgentState.stopped`, "
        "in `tools/patches/`, "
        "`policy/shell/`, `tools/registry.build_tools(read_only=True)`;\n"
        "not Python: `lspAgent.run`, `session/new`, `tool_wrapped.x`.\n"
        "Gone: `code_agent.py`, sandbox/check_command.py, `sandbox.project_deps`, "
        "`runtime.run_agent_job`, `Settings.no_such_config()`, `policy/parser/` and "
        "`tools/patch_writer.py`, `tools/registry.build_all()`.\n"
        "```text\n lsp/gone_module.py   `not a span\n```\n"
        "A span that wraps is read as one: `tools/registry.\nnot_there`."
    )
    assert stale_names(text, files) == [
        "code_agent.py: not in the tree",
        "lsp/gone_module.py: not in the tree",
        "sandbox/check_command.py: not in the tree",
        "tools/patch_writer.py: not in the tree",
        "Settings.no_such_config(): Settings has no no_such_config",
        "policy/parser/: no such folder",
        "runtime.run_agent_job: runtime has no run_agent_job",
        "sandbox.project_deps: sandbox has no project_deps",
        "tools/registry.build_all(): tools.registry has no build_all",
        "tools/registry.not_there: tools.registry has no not_there",
    ]


def test_architecture_names_only_modules_that_exist() -> None:
    assert stale_names(ARCHITECTURE.read_text(encoding="utf-8"), repo_files()) == []
