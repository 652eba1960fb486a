"""A named pipe in the repository blocks nothing (issue 28, low): `read_file` on it used to
wait for a writer for ever, beyond the job's cancel. The real `lsp-agent run`, the model
scripted: each tool that reads files meets pipes named like ordinary and secret files."""

from __future__ import annotations

import json
import os
from pathlib import Path

from lsp_agent.testing import ScriptedOpenAIServer
from tests.agent.scripted_run import run_against


def test_named_pipes_are_refused_not_waited_on(tmp_repo: Path, tmp_path: Path) -> None:
    for name in ("notes.txt", "server.pem", "package.json", "pkg/fifo.py"):
        os.mkfifo(tmp_repo / name)
    turns = [
        {"tool": "read_file", "arguments": {"path": "notes.txt"}},
        {"tool": "read_file_snippet", "arguments": {"path": "pkg/fifo.py", "pattern": "x"}},
        {"tool": "rg_search", "arguments": {"pattern": "def"}},
        {"tool": "list_files", "arguments": {"pattern": "**"}},
        {"final_answer": "done"},
    ]
    with ScriptedOpenAIServer(turns) as server:
        out = run_against(server, tmp_repo, "look", "--yes", timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    results = [
        str(m.get("content"))
        for m in server.chat_requests[-1]["messages"]
        if m.get("role") == "tool"
    ]
    assert "a named pipe, not a file" in results[0], results[0]
    assert "a named pipe, not a file" in results[1], results[1]
    assert "pkg/calc.py" in results[2] and "def add" in results[2]
    assert json.dumps(results)  # every call came back
