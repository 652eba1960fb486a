"""A proposal that would leave a Python file unparsable is refused before its check.

Qwen2.5-Coder-1.5B, told to fix total_stock(), proposed edits after which report.py did not
parse (`SyntaxError: invalid syntax`), applied them and answered that the function was fixed
(2 of 3 runs). aider lints each edit and hands the errors back; here the proposal itself is
refused, with the line that does not parse, so the model's next call is the fix. A file that
did not parse before the patch (or is not Python) is not judged: the patch may be its repair.
"""

from __future__ import annotations

import ast

from safety.errors import ErrorType
from safety.unified_diff import PatchError
from tools.patches.model import PatchResult

PYTHON_SUFFIXES = (".py", ".pyi")
SHOWN_LINE_CHARS = 120


def refuse_broken_python(result: PatchResult) -> None:
    """Raise PatchError when `result` turns a Python file that parses into one that does not."""
    for file in result.files:
        if not file.path.endswith(PYTHON_SUFFIXES) or file.after is None:
            continue
        if file.before is not None and _syntax_error(file.before) is not None:
            continue
        error = _syntax_error(file.after)
        if error is None:
            continue
        lines = file.after.splitlines()
        line = lines[error.lineno - 1] if error.lineno and error.lineno <= len(lines) else ""
        shown = f": `{line.strip()[:SHOWN_LINE_CHARS]}`" if line.strip() else ""
        raise PatchError(
            f"With this change {file.path} would not be valid Python: {error.msg} "
            f"(line {error.lineno}{shown}). Nothing was proposed.",
            kind=ErrorType.PATCH_INVALID,
            recovery_suggestion=(
                "Propose the change again so that the file stays valid Python: write whole "
                "lines with the file's indentation, and close every bracket and string."
            ),
            file=file.path,
        )


def _syntax_error(text: str) -> SyntaxError | None:
    try:
        ast.parse(text)
    except SyntaxError as error:
        return error
    except ValueError:  # a NUL byte: not Python text we judge
        return None
    return None
