"""The one small repository the tests and the sandbox bench share, and its sample diffs.

`pkg/calc.py` holds `add(a, b)`; `tests/test_calc.py` checks `add(2, 3) == 5`.
`CALC_DIFF` swaps the operands (applies, the test still passes); `BROKEN_CALC_DIFF`
applies too but breaks the test.
"""

from __future__ import annotations

from pathlib import Path

CALC_SOURCE = "def add(a, b):\n    return a + b\n"
CALC_TEST = "from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"

CALC_DIFF = """\
--- a/pkg/calc.py
+++ b/pkg/calc.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a + b
+    return b + a
"""
BROKEN_CALC_DIFF = CALC_DIFF.replace("+    return b + a", "+    return a - b")


def write_calc_repo(repo: Path) -> Path:
    """Write the package and its test into `repo` (created when missing); return `repo`."""
    (repo / "pkg").mkdir(parents=True, exist_ok=True)
    (repo / "tests").mkdir(exist_ok=True)
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "calc.py").write_text(CALC_SOURCE)
    (repo / "tests" / "test_calc.py").write_text(CALC_TEST)
    return repo
