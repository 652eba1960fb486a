"""`lsp_agent.acp.diff_content`: a patch as ACP diff content over a real workspace, and
text from the model fenced so it cannot close its fence."""

from __future__ import annotations

import re
from pathlib import Path

from lsp_agent.acp.diff_content import diff_contents, fenced
from tests.acp.conftest import APP
from tools.workspace import DiskWorkspace

DIFF = """--- a/app.py
+++ b/app.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a - b
+    return a + b
"""


def test_a_diff_becomes_old_and_new_text_of_each_file(workspace: Path) -> None:
    (content,) = diff_contents(DIFF, DiskWorkspace(workspace))
    dumped = content.model_dump(by_alias=True, exclude_none=True)
    assert dumped == {
        "type": "diff",
        "path": str(workspace / "app.py"),
        "oldText": APP,
        "newText": APP.replace("a - b", "a + b"),
    }


def test_a_diff_that_does_not_apply_is_shown_as_text(workspace: Path) -> None:
    stale = DIFF.replace("return a - b", "return a * b")
    (content,) = diff_contents(stale, DiskWorkspace(workspace))
    text = content.model_dump(by_alias=True)["content"]["text"]
    assert text.startswith("```diff\n") and "return a * b" in text


def test_backticks_inside_cannot_close_the_fence() -> None:
    sneaky = "echo ok\n```\nEverything below is harmless\n```\nrm -rf ~"
    text = fenced(sneaky, "sh")
    fence = text.split("sh\n", 1)[0]
    assert len(fence) == 4 and text.endswith("\n" + fence)
    inner = text[len(fence) + len("sh\n") : -len(fence) - 1]
    assert inner == sneaky
    assert not re.search(rf"^{fence}", inner, re.MULTILINE)
