"""An indented block that does not parse by itself is read as the rest of a function's body.

Asked to implement say(), Qwen2.5-Coder-1.5B in code mode wrote `def say(number):` with its
range check and a comment `# Implement the rest of the function`; say() with the check was
proposed and applied. Its next replies sent the rest of the body, indented, without the `def`
line (`    if number < 20: return …`): run alone, each block failed with "SyntaxError:
unexpected indent", nothing was proposed, and the model wrote the same lines "with the
indentation fixed" until the loop guard stopped it (say, 2026-11-29). The lines mean what a
person reading them would take them for: the rest of the function they continue.

`continued(block, source)` gives the whole function such a block continues, for `merge` to
put in place of the file's: the function of `source` whose parameters the block's lines use
(the most of them; the later function on a tie), with the block after what its body keeps;
when a statement of the body starts with the block's first line, the block takes its place
and that of the statements after it (the body, or its end, written again: the same lines
sent twice do not make the function twice as long). A body's trailing placeholder (`pass`,
`...`, `raise NotImplementedError`) is dropped first. A method comes back dedented to the top
level (`def guess(self, char): …`), which `merge` puts into its class. Nothing else is
guessed: a block that parses, is not indented (its first line aside: smolagents strips a
block, so that line is taken to be indented as the least of the others), uses none of a
function's parameters, or does not parse once put in place gives None.
"""

from __future__ import annotations

import ast
import textwrap

from lsp_agent.agent.code_mode.block_text import PARSE_ERRORS, parses

__all__ = ["continued"]

_FUNCTION = ast.FunctionDef | ast.AsyncFunctionDef


def continued(block: str, source: str) -> str | None:
    """The function of `source` that the indented `block` continues, with it (module doc);
    None when the block is no such continuation."""
    if parses(block):
        return None
    block = _first_line_restored(block)
    if not _indented(block):
        return None
    body_text = textwrap.dedent(block).strip("\n")
    try:
        body_tree, source_tree = ast.parse(body_text), ast.parse(source)
    except PARSE_ERRORS:
        return None
    used = {node.id for node in ast.walk(body_tree) if isinstance(node, ast.Name)}
    function = _continued_function(_functions(source_tree), used)
    if function is None or function.body[0].lineno == function.lineno:
        return None  # no function, or a one-line `def f(x): pass` (no body lines to extend)
    whole = _joined(source.splitlines(), function, body_text, body_tree)
    return whole if parses(whole) else None


def _first_line_restored(block: str) -> str:
    """The block with its first line indented as its other lines are at least, when it is
    not and they are: smolagents strips a block's text, and the first line of an indented
    block comes without its indentation (`if number < 20:` above `        return …`)."""
    lines = block.strip("\n").splitlines()
    if not lines or lines[0][:1] in (" ", "\t"):
        return block
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    least = min(indents, default=0)
    return "\n".join([" " * least + lines[0], *lines[1:]]) if least else block


def _indented(block: str) -> bool:
    first = next((line for line in block.splitlines() if line.strip()), "")
    return first[:1] in (" ", "\t")


def _functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The module's top-level functions and its top-level classes' methods, in file order."""
    found: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for node in tree.body:
        if isinstance(node, _FUNCTION):
            found.append(node)
        elif isinstance(node, ast.ClassDef):
            found.extend(item for item in node.body if isinstance(item, _FUNCTION))
    return sorted(found, key=lambda node: node.lineno)


def _continued_function(
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef], used: set[str]
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    best: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    best_count = 0
    for function in functions:
        arguments = function.args
        parameters = {
            a.arg
            for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            + [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
        }
        count = len(parameters & used)
        if count and count >= best_count:  # a later function wins a tie
            best, best_count = function, count
    return best


def _joined(
    lines: list[str],
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    body_text: str,
    body_tree: ast.Module,
) -> str:
    """The function's header and kept body with the block's lines after them, at the
    top level."""
    decorators = [d.lineno for d in function.decorator_list]
    first = min([function.lineno, *decorators])
    kept = _kept_statements(function)
    if body_tree.body:  # from a statement the block starts with, the block writes it again
        start = _first_line_of(body_text, body_tree.body[0])
        again = [i for i, node in enumerate(kept) if lines[node.lineno - 1].strip() == start]
        kept = kept[: again[0]] if again else kept
    if _docstring(function) is not None:
        kept = [function.body[0], *kept]
    header_end = function.body[0].lineno - 1
    end = (kept[-1].end_lineno or kept[-1].lineno) if kept else header_end
    pad = " " * function.body[0].col_offset
    tail = [pad + line if line.strip() else line for line in body_text.splitlines()]
    return textwrap.dedent("\n".join([*lines[first - 1 : max(end, header_end)], *tail])) + "\n"


def _kept_statements(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    """The body without its docstring and trailing placeholders."""
    body = list(function.body)
    if _docstring(function) is not None:
        body = body[1:]
    while body and _placeholder(body[-1]):
        body.pop()
    return body


def _docstring(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    return ast.get_docstring(function, clean=False)


def _placeholder(node: ast.stmt) -> bool:
    if isinstance(node, ast.Pass):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return node.value.value is Ellipsis
    if isinstance(node, ast.Raise) and node.exc is not None:
        raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"
    return False


def _first_line_of(text: str, node: ast.stmt) -> str:
    return text.splitlines()[node.lineno - 1].strip()
