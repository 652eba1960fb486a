"""Where else a search/replace `old` that is not in its file is: another file the job knows.

Told that 8 tests of pascals_triangle_test.py still failed, Qwen2.5-Coder-1.5B called
`propose_patch(path="pascals_triangle.py", old="[1], [1, 1], [1, 2, 1], …")`: the test
file's expected rows, written on one line. "'old' was not found in pascals_triangle.py"
and the file's closest lines did not tell it why; it read the file and sent the same call
until the loop guard stopped the run. Said where the text is, and that a test file is not
the thing to change, the mistake has a way out.

The search is no oracle: sensitive files (`.env`, keys) are never read, and a file is
searched as the read tools show it, its secrets redacted.
"""

from __future__ import annotations

from collections.abc import Iterable

from safety.secret_redaction import redact_secrets
from safety.sensitive import DEFAULT_SENSITIVE
from tools.test_failures import is_test_support
from tools.workspace import NotTextError, Workspace

MIN_CHARS = 12  # shorter text is found everywhere and says nothing


def text_elsewhere(old: str, path: str, others: Iterable[str], workspace: Workspace) -> str:
    """A sentence saying which of `others` holds `old` (whitespace ignored) and at which
    line, and what to do; "" when none does, or `old` is too short to tell."""
    wanted = "".join(old.split())
    if len(wanted) < MIN_CHARS:
        return ""
    for other in dict.fromkeys(others):
        if other == path or DEFAULT_SENSITIVE.match(other) is not None:
            continue
        try:
            text = redact_secrets(workspace.read_text(other))
        except (OSError, NotTextError, ValueError):
            continue
        line = _line_of(wanted, text)
        if line is None:
            continue
        where = f"It is text of {other} (line {line}), not of {path}."
        if is_test_support(other):
            return (
                f"{where} Tests are not changed: change the code in {path} so that they pass "
                "(read it first)."
            )
        return f'{where} To change it there, propose it with path="{other}".'
    return ""


def _line_of(wanted: str, text: str) -> int | None:
    """The line of `text` where `wanted` (no whitespace) begins, whitespace ignored."""
    squashed: list[str] = []
    line_of_char: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        for char in line:
            if not char.isspace():
                squashed.append(char)
                line_of_char.append(number)
    at = "".join(squashed).find(wanted)
    return None if at < 0 else line_of_char[at]
