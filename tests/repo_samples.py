"""Sample diffs for the `tmp_repo` fixture's repository, and a digest of a whole tree."""

from __future__ import annotations

import hashlib
from pathlib import Path

# Swaps the operands in pkg/calc.py: applies cleanly and keeps the test passing.
CALC_DIFF = """\
--- a/pkg/calc.py
+++ b/pkg/calc.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a + b
+    return b + a
"""
# Applies cleanly but breaks the test.
BROKEN_CALC_DIFF = CALC_DIFF.replace("+    return b + a", "+    return a - b")


def tree_digest(root: Path) -> str:
    """A hash of every file's path and bytes under `root`: equal digests, untouched tree."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()
