"""The module import graph: dependencies point one way and no module imports itself back.

Also the layout's rules: a subsystem folder of `tools/`, `safety/` or `sandbox/` is imported
from outside only through its `__init__`; a private module (`_name.py`) only from inside its
package; no two sub-packages import each other.

Built with `ast` from the sources of lsp_agent, tools, safety and sandbox. Only runtime
imports count: an import under `if TYPE_CHECKING:` is for the type checker only.
Imports inside functions count (they run when the function does), and so does
`importlib.import_module("a.b")` with a literal name. `from a import b` depends on the
module `a.b` when there is one, else on `a`; a package's own `__init__` (which Python runs
before any of its modules) is not counted as a dependency of its modules.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import REPO_ROOT

ROOT = REPO_ROOT
PACKAGES = ("lsp_agent", "tools", "safety", "sandbox")
NEVER_IMPORT_LSP_AGENT = ("safety", "sandbox", "tools")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _runtime_nodes(node: ast.AST) -> Iterator[ast.AST]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield other
                yield from _runtime_nodes(other)
            continue
        yield child
        yield from _runtime_nodes(child)


def imported_names(path: Path, module: str) -> set[str]:
    """Fully qualified names a module imports at runtime (`from a import b` gives a and a.b)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    names: set[str] = set()
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                drop = node.level - 1 if is_package else node.level
                base = base[: len(base) - drop] if drop else base
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            names.update(f"{prefix}.{alias.name}" for alias in node.names)
        elif _is_import_module_call(node):
            assert isinstance(node, ast.Call) and isinstance(node.args[0], ast.Constant)
            names.add(str(node.args[0].value))
    return names


def _is_import_module_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call) or not node.args:
        return False
    func = node.func
    named = (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
        isinstance(func, ast.Name) and func.id == "import_module"
    )
    first = node.args[0]
    return named and isinstance(first, ast.Constant) and isinstance(first.value, str)


def graph() -> dict[str, set[str]]:
    modules = sources()
    edges: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets = set()
        for name in imported_names(path, module):
            # The deepest module of ours the name refers to (a.b.c may be a function in a.b).
            target = name
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != module:
                targets.add(target)
        edges[module] = targets
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_the_modules_and_their_imports() -> None:
    edges = graph()
    assert "tools.instrumented" in edges and "sandbox.factory" in edges
    assert "safety.errors" in edges["tools.base"]
    assert "sandbox.config" in edges["sandbox.factory"]
    assert "sandbox.tracing" in edges["sandbox.factory"]  # from `from sandbox import tracing`
    assert "lsp_agent.models.embedded.model" in edges["lsp_agent.models.factory"]  # import_module


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycles_between_modules() -> None:
    assert cycles(graph()) == []


def test_safety_sandbox_and_tools_never_import_lsp_agent_at_runtime() -> None:
    offenders = sorted(
        f"{module} imports {target}"
        for module, targets in graph().items()
        if module.split(".")[0] in NEVER_IMPORT_LSP_AGENT
        for target in targets
        if target.split(".")[0] == "lsp_agent"
    )
    assert offenders == []


def test_safety_and_sandbox_do_not_import_tools_and_safety_not_sandbox() -> None:
    allowed = {"safety": {"safety"}, "sandbox": {"sandbox", "safety"}}
    offenders = sorted(
        f"{module} imports {target}"
        for module, targets in graph().items()
        if module.split(".")[0] in allowed
        for target in targets
        if target.split(".")[0] not in allowed[module.split(".")[0]]
    )
    assert offenders == []


def test_front_ends_do_not_import_each_other_and_the_runtime_imports_none() -> None:
    front_ends = ("lsp_agent.lsp", "lsp_agent.acp", "lsp_agent.cli")
    offenders = sorted(
        f"{module} imports {target}"
        for module, targets in graph().items()
        for target in targets
        for home in ("lsp_agent.lsp", "lsp_agent.acp", "lsp_agent.agent")
        if module.startswith(home + ".") or module == home
        if any(target.startswith(f + ".") for f in front_ends if f != home)
    )
    assert offenders == []


def packages() -> set[str]:
    """Every package (a folder with an `__init__.py`) of ours, by dotted name."""
    return {
        module_name(path) for package in PACKAGES for path in (ROOT / package).rglob("__init__.py")
    }


def subsystem_folders() -> list[str]:
    """The folders below `tools/`, `safety/` and `sandbox/` (`sandbox.checks`, `tools.patches`,
    `safety.policy.shell`, ...): what outside code may import of each is its `__init__`."""
    return sorted(p for p in packages() if p.count(".") >= 1 and p.split(".")[0] != "lsp_agent")


def inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def private_imports(edges: dict[str, set[str]], package: str) -> list[str]:
    """Imports of a module of `package` (or of its sub-packages) from outside `package`."""
    return sorted(
        f"{module} imports {target}"
        for module, targets in edges.items()
        if not inside(module, package)
        for target in targets
        if target.startswith(package + ".")
    )


def test_the_private_import_finder_finds_one() -> None:
    edges = {"tools.a": {"safety.policy.rules"}, "safety.policy.x": {"safety.policy.rules"}}
    assert private_imports(edges, "safety.policy") == ["tools.a imports safety.policy.rules"]
    assert private_imports({"tools.a": {"safety.policy"}}, "safety.policy") == []


def test_the_subsystem_folders_are_found() -> None:
    expected = {"safety.policy", "safety.policy.shell", "sandbox.checks", "sandbox.docker"}
    assert expected | {"sandbox.code", "sandbox.project_envs", "tools.patches"} <= set(
        subsystem_folders()
    )


@pytest.mark.parametrize("package", subsystem_folders())
def test_subsystem_folders_are_imported_through_their_init(package: str) -> None:
    assert private_imports(graph(), package) == []


def test_private_modules_are_imported_only_inside_their_package() -> None:
    offenders = sorted(
        f"{module} imports {target}"
        for module, targets in graph().items()
        for target in targets
        if target.rpartition(".")[2].startswith("_")
        and not inside(module, target.rpartition(".")[0])
    )
    assert offenders == []


def sub_package(module: str, known: set[str]) -> str | None:
    """The sub-package (`lsp_agent.models`, `sandbox.docker`) a module belongs to, or None
    for a top-level package's own modules (`sandbox.factory`, `lsp_agent.settings`)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 and ".".join(parts[:2]) in known else None


def test_no_two_sub_packages_import_each_other() -> None:
    known = packages()
    between: set[tuple[str, str]] = set()
    for module, targets in graph().items():
        for target in targets:
            a, b = sub_package(module, known), sub_package(target, known)
            if a and b and a != b:
                between.add((a, b))
    assert {
        ("lsp_agent.cli", "lsp_agent.demo"),
        ("lsp_agent.testing", "lsp_agent.models"),
    } <= between
    mutual = sorted(f"{a} <-> {b}" for a, b in between if a < b and (b, a) in between)
    assert mutual == []
