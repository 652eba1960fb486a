"""The bench's editor: the language server over stdio, documents opened and typed into."""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from lsp_agent.benchmarks.completion.held_out import Target
from lsp_agent.benchmarks.runner import BenchError
from lsp_agent.benchmarks.stdio_client import StdioClient
from lsp_agent.completion import CompletionQuery, OpenDocument


class Editor:
    """The bench's editor: open documents, typing (incremental `didChange`), requests."""

    def __init__(self, client: StdioClient, root: Path) -> None:
        self.client, self.root = client, root
        self.docs: dict[str, tuple[list[str], int]] = {}
        self.paths: dict[str, str] = {}

    def uri(self, rel: str) -> str:
        return (self.root / rel).resolve().as_uri()

    def show(self, target: Target, typed: str) -> tuple[str, list[str]]:
        """The target's file with its line replaced by `typed` (opened or replaced whole)."""
        uri = self.uri(target.rel)
        lines = [*target.lines[: target.line], typed, *target.lines[target.line + 1 :]]
        text = "\n".join(lines) + "\n"
        if uri not in self.docs:
            self.paths[uri] = target.rel
            item = {"uri": uri, "languageId": "python", "version": 1, "text": text}
            self.client.notify("textDocument/didOpen", {"textDocument": item})
            self.docs[uri] = (lines, 1)
            return uri, lines
        version = self.docs[uri][1] + 1
        self.client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
        )
        self.docs[uri] = (lines, version)
        return uri, lines

    def open_block(self, block: list[Target]) -> tuple[str, list[str]]:
        """The block's file without the block's lines, the cursor line holding the first
        line's indentation (opened, or replaced whole)."""
        first = block[0]
        kept = [*first.lines[: first.line], first.indent, *first.lines[first.line + len(block) :]]
        uri, _ = self.show(replace(first, lines=tuple(kept)), first.indent)
        return uri, kept

    def newline(self, uri: str, line: int, indent: str) -> list[str]:
        """Enter at the end of `line`, then the next line's indentation."""
        lines, _ = self.docs[uri]
        self.type(uri, line, len(lines[line]), "\n" + indent)
        return self.docs[uri][0]

    def set_line(self, uri: str, line: int, text: str) -> list[str]:
        """The rest of the line typed (no request): `line` now holds `text`."""
        lines, version = self.docs[uri]
        rng = {
            "start": {"line": line, "character": 0},
            "end": {"line": line, "character": len(lines[line])},
        }
        lines[line] = text
        self.client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version + 1},
                "contentChanges": [{"range": rng, "text": text}],
            },
        )
        self.docs[uri] = (lines, version + 1)
        return lines

    def type(self, uri: str, line: int, at: int, text: str) -> list[str]:
        lines, version = self.docs[uri]
        head, *more = (lines[line][:at] + text + lines[line][at:]).split("\n")
        lines[line : line + 1] = [head, *more]
        position = {"line": line, "character": at}
        change = {"range": {"start": position, "end": position}, "text": text}
        self.client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version + 1}, "contentChanges": [change]},
        )
        self.docs[uri] = (lines, version + 1)
        return lines

    def ask(
        self, uri: str, line: int, character: int, *, invoked: bool = False, actions: list[float]
    ) -> tuple[float, str]:
        """One completion round trip (ms, text), code actions sent while it runs."""
        params = {
            "textDocument": {"uri": uri},
            "position": {"line": line, "character": character},
            "context": {"triggerKind": 1 if invoked else 2},
        }
        started = time.perf_counter()
        pending = self.client.begin("textDocument/inlineCompletion", params)
        actions.extend(self._code_action(uri, line) for _ in range(2))
        result = self.client.wait(pending, "textDocument/inlineCompletion")
        elapsed = (time.perf_counter() - started) * 1000
        items = (result or {}).get("items", []) if isinstance(result, dict) else result or []
        return elapsed, str(items[0]["insertText"]) if items else ""

    def _code_action(self, uri: str, line: int) -> float:
        rng = {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 1}}
        params = {"textDocument": {"uri": uri}, "range": rng, "context": {"diagnostics": []}}
        started = time.perf_counter()
        self.client.request("textDocument/codeAction", params)
        return (time.perf_counter() - started) * 1000

    def last(self) -> dict[str, Any]:
        status = self.client.request(
            "workspace/executeCommand", {"command": "lspAgent.status", "arguments": []}
        )
        completions = status.get("completions", {}) if isinstance(status, dict) else {}
        last = completions.get("last", {})
        return last if isinstance(last, dict) else {}

    def query(
        self, uri: str, lines: list[str], line: int, character: int, invoked: bool
    ) -> CompletionQuery:
        """The query the server got for this request (for the same request sent directly)."""
        documents = {u: OpenDocument(self.paths[u], list(ls)) for u, (ls, _) in self.docs.items()}
        return CompletionQuery(
            uri, self.paths[uri], list(lines), line, character, not invoked, documents
        )


def server_environment(model: str, extra: dict[str, str]) -> dict[str, str]:
    return {
        **os.environ,
        "PHOENIX_ENABLED": "false",
        "SANDBOX_BACKEND": "none",
        "LOG_LEVEL": "WARNING",
        "COMPLETION_MODEL_ID": model,
        "COMPLETION_DEBOUNCE_MS": "0",
        **extra,
    }


def start_editor(root: Path, env: dict[str, str]) -> Editor:
    client = StdioClient(env, root)
    params = {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {}}
    result = client.request("initialize", params)
    client.notify("initialized", {})
    if "inlineCompletionProvider" not in (result or {}).get("capabilities", {}):
        client.close()
        raise BenchError("the server does not offer inline completions with this model")
    return Editor(client, root)
