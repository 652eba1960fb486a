"""`lsp-agent bench complete [--model ID] [--runs N]`: inline completions on a real model, through
the language server over stdio and straight to the backend, in the same run.

Held-out text: source files of an installed package released after the Qwen2.5-Coder models
(`acp`, agent-client-protocol 0.12), which the model cannot have seen. `--runs N` blocks of
`BLOCK_LINES` consecutive code lines of them (default 8) are written again as a user writes
new code: the block is taken out of its file, then each line is typed a word at a time after
Enter, each word followed by a completion request (sequential: no request is superseded;
`COMPLETION_DEBOUNCE_MS=0`), then the first two characters of the completion shown (a repeat
that the cache answers), then the rest of the line.

Figures (milliseconds from request to answer, as the editor sees them):
- `typing_p50_ms` / `typing_p90_ms` / `typing_p95_ms`: every request (a keystroke's first
  item) of the typing session the model answered, the first request of each block excluded:
  the first in a file (`first_request_ms`, their median) and the first after a jump to another
  place in an open file (`jump_p50_ms` / `jump_max_ms`, `jumps` of them), which read a new
  prompt; `keystroke_p50_ms` / `keystroke_p90_ms`: every request of the session after a
  block's first, those the cache answered too (`keystrokes` of them);
  `in_line_p50_ms` / `in_line_p90_ms`, `in_line_prompt_tokens_p50` / `in_line_cached_tokens_p50`:
  the model's answers to keystrokes on a line (not the first request on a new line), and the
  tokens each read and reused; `line_start_p50_ms` / `line_start_p90_ms`: the first request on
  each new line after Enter;
- `direct_p50_ms` / `direct_p95_ms`: the same requests (same FIM context, same order, so the
  same KV-cache state) sent straight to the backend in this process; `overhead_pct`: how much
  slower the language server's answer is at the median;
- `cache_p50_ms` / `cache_max_ms`: typing the start of a shown completion (`cache_hits` of
  `cache_requests` answered from the cache);
- `prompt_tokens_p50` / `prompt_tokens_p90` / `cached_tokens_p50`: tokens the model read per
  request and reused from its KV cache (the keystroke costs the former only);
- `code_action_p99_ms`: `textDocument/codeAction` round trips sent while completions run;
- `exact_match_lsp` / `exact_match_direct`: of `quality_positions` (3 per run) line starts
  (the cursor after the line's indentation), the share whose completion's first line is the
  file's real line — after lsp-agent's post-processing, and the backend's raw text;
- with an embedded model, `during_job_p50_ms` / `during_job_max_ms`: completions while an agent
  job runs on the same loaded model (`idle_p50_ms`: the same requests with no job);
  `during_job_delayed` of `during_job_requests`: those whose decode steps waited for an agent
  step (`during_job_wait_p50_ms` / `during_job_wait_max_ms`: how long, per request).
"""

from __future__ import annotations

import asyncio
import importlib
import os
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lsp_agent.benchmarks.runner import BenchError, BenchOptions
from lsp_agent.benchmarks.stdio_client import StdioClient
from lsp_agent.completion import CompletionQuery, CompletionService, OpenDocument, open_backend
from lsp_agent.completion.config import CompletionConfig, CompletionModelError
from lsp_agent.settings import user_scope_settings

DEFAULT_MODEL = "embedded:qwen2.5-coder-1.5b"
HELD_OUT_PACKAGE = "acp"
HELD_OUT_FILES = ("helpers.py", "router.py", "connection.py", "stdio.py")
QUALITY_PER_RUN = 3  # next-line positions per typed block
BLOCK_LINES = 3  # consecutive lines typed in one place
JOB_HEAD_START_S = 5.0
WORDS_PER_LINE = 4
_WORD_END = re.compile(r"\w(?=\W)|\W(?=\w)")


@dataclass(frozen=True)
class Target:
    """A line of a held-out file to type (`text` without its line break)."""

    rel: str
    lines: tuple[str, ...]
    line: int

    @property
    def text(self) -> str:
        return self.lines[self.line]

    @property
    def indent(self) -> str:
        return self.text[: len(self.text) - len(self.text.lstrip())]


@dataclass
class Record:
    """What the typing session saw, request by request."""

    typing: list[float] = field(default_factory=list)
    keystrokes: list[float] = field(default_factory=list)
    jumps: list[float] = field(default_factory=list)
    line_starts: list[float] = field(default_factory=list)
    in_line: list[float] = field(default_factory=list)
    in_line_tokens: list[tuple[float, float]] = field(default_factory=list)  # (read, reused)
    first: list[float] = field(default_factory=list)
    cache: list[float] = field(default_factory=list)
    cache_hits: int = 0
    prompt_tokens: list[float] = field(default_factory=list)
    cached_tokens: list[float] = field(default_factory=list)
    waited: list[float] = field(default_factory=list)
    code_actions: list[float] = field(default_factory=list)
    # (query, left out of the typing figures: a block's first request)
    replay: list[tuple[CompletionQuery, bool]] = field(default_factory=list)


def _code_line(text: str) -> bool:
    body = text.strip()
    return text.startswith(" ") and 12 <= len(body) <= 90 and not body.startswith(("#", '"'))


def _held_out_starts(size: int) -> list[Target]:
    """Every code line of the held-out files followed by `size - 1` more code lines."""
    package = importlib.import_module(HELD_OUT_PACKAGE)
    root = Path(str(package.__file__)).parent
    eligible: list[Target] = []
    for name in HELD_OUT_FILES:
        lines = tuple((root / name).read_text(encoding="utf-8").splitlines())
        code = [_code_line(text) for text in lines]
        for index in range(len(lines) - size + 1):
            if all(code[index : index + size]):
                eligible.append(Target(f"{HELD_OUT_PACKAGE}/{name}", lines, index))
    if not eligible:
        raise BenchError(f"no held-out lines found in {root}")
    return eligible


def held_out_lines(count: int, offset: int = 0) -> list[Target]:
    """`count` code lines spread over the held-out files (indented, 12-90 characters)."""
    eligible = _held_out_starts(1)
    step = max(1, len(eligible) // max(1, count))
    return [eligible[(offset + i * step) % len(eligible)] for i in range(count)]


def held_out_blocks(count: int, offset: int = 0, size: int = BLOCK_LINES) -> list[list[Target]]:
    """`count` blocks of `size` consecutive code lines, spread over the held-out files."""
    eligible = _held_out_starts(size)
    step = max(1, len(eligible) // max(1, count))
    starts = [eligible[(offset + i * step) % len(eligible)] for i in range(count)]
    return [[replace(s, line=s.line + k) for k in range(size)] for s in starts]


def typing_steps(text: str) -> list[str]:
    """What is typed of `text` before each request: its indentation, then word by word."""
    indent = len(text) - len(text.lstrip())
    ends = [m.end() for m in _WORD_END.finditer(text, indent)]
    cuts = [indent, *ends[: WORDS_PER_LINE - 1]]
    return [text[:cut] for cut in sorted(set(cuts))]


def _percentile(samples: list[float], fraction: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


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


def _typing_session(editor: Editor, blocks: list[list[Target]], record: Record) -> None:
    opened: set[str] = set()
    for block in blocks:
        uri, _ = editor.open_block(block)
        first_of_file = uri not in opened
        opened.add(uri)
        for index, target in enumerate(block):
            if index:
                editor.newline(uri, target.line - 1, target.indent)
            _type_line(editor, uri, target, record, first=None if index else first_of_file)
            editor.set_line(uri, target.line, target.text)


def _type_line(
    editor: Editor, uri: str, target: Target, record: Record, *, first: bool | None
) -> None:
    """Type `target` word by word (its line holds its indentation); `first`: this line
    begins a block (True: in a file not open before), None: Enter led here."""
    steps = typing_steps(target.text)
    shown = ""
    for before, after in zip(["", *steps], steps, strict=False):
        lines = editor.docs[uri][0]
        if after != steps[0]:
            lines = editor.type(uri, target.line, len(before), after[len(before) :])
        ms, shown = editor.ask(uri, target.line, len(after), actions=record.code_actions)
        last = editor.last()
        begins_block = first is not None and after == steps[0]
        if not begins_block:
            record.keystrokes.append(ms)
        if last.get("source") != "model":
            continue
        if begins_block:
            (record.first if first else record.jumps).append(ms)
        else:
            record.typing.append(ms)
            record.waited.append(float(last.get("waitedMs", 0)))
        query = editor.query(uri, lines, target.line, len(after), False)
        record.replay.append((query, begins_block))
        record.prompt_tokens.append(float(last.get("promptTokens", 0)))
        record.cached_tokens.append(float(last.get("cachedTokens", 0)))
        if begins_block:
            continue
        if after == steps[0]:
            record.line_starts.append(ms)
        else:
            record.in_line.append(ms)
            record.in_line_tokens.append((record.prompt_tokens[-1], record.cached_tokens[-1]))
    if len(shown) >= 3:
        at = len(steps[-1])
        editor.type(uri, target.line, at, shown[:2])
        ms, _ = editor.ask(uri, target.line, at + 2, actions=record.code_actions)
        record.cache.append(ms)
        record.cache_hits += editor.last().get("source") == "cache"


async def _direct(
    config: CompletionConfig, record: Record, quality: list[tuple[CompletionQuery, str]]
) -> tuple[list[float], int]:
    """The typing session's model requests and the quality positions, straight to the backend."""
    backend = open_backend(config)
    service = CompletionService(config, backend)
    await backend.warm_up()
    times: list[float] = []
    try:
        for query, first in record.replay:
            request = service.request_for(query)
            started = time.perf_counter()
            await backend.complete(request)
            if not first:
                times.append((time.perf_counter() - started) * 1000)
        matches = 0
        for query, expected in quality:
            result = await backend.complete(service.request_for(query))
            matches += _first_line(result.text) == expected.strip()
    finally:
        await backend.close()
    return times, matches


def _first_line(text: str) -> str:
    return text.strip("\n").split("\n", 1)[0].strip()


def _quality(editor: Editor, count: int) -> tuple[int, list[tuple[CompletionQuery, str]]]:
    matches = 0
    asked: list[tuple[CompletionQuery, str]] = []
    ignored: list[float] = []
    for target in held_out_lines(count, offset=1):
        uri, lines = editor.show(target, target.indent)
        _, text = editor.ask(uri, target.line, len(target.indent), invoked=True, actions=ignored)
        matches += _first_line(text) == target.text.strip()
        asked.append((editor.query(uri, lines, target.line, len(target.indent), True), target.text))
    return matches, asked


def _progress(what: str, samples: list[float]) -> None:
    """A line on stderr as each phase ends (a run takes minutes on a CPU)."""
    median = f", p50 {statistics.median(samples):.0f} ms" if samples else ""
    print(f"bench complete: {what}{median}", file=sys.stderr, flush=True)


def _environment(model: str, extra: dict[str, str]) -> dict[str, str]:
    return {
        **os.environ,
        "PHOENIX_ENABLED": "false",
        "SANDBOX_BACKEND": "none",
        "LOG_LEVEL": "WARNING",
        "COMPLETION_MODEL_ID": model,
        "COMPLETION_DEBOUNCE_MS": "0",
        **extra,
    }


def _start(root: Path, env: dict[str, str]) -> Editor:
    client = StdioClient(env, root)
    params = {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {}}
    result = client.request("initialize", params)
    client.notify("initialized", {})
    if "inlineCompletionProvider" not in (result or {}).get("capabilities", {}):
        client.close()
        raise BenchError("the server does not offer inline completions with this model")
    return Editor(client, root)


def _typed(editor: Editor, blocks: list[list[Target]]) -> Record:
    """A typing session's record (latencies: the first request of each block left out)."""
    record = Record()
    _typing_session(editor, blocks, record)
    return record


def _during_job(root: Path, model: str, lines: int) -> dict[str, float]:
    """Completions with no job, then while an agent job runs on the same loaded model."""
    editor = _start(root, _environment(model, {"MODEL_ID": model, "AGENT_MAX_STEPS": "50"}))
    try:
        idle = _typed(editor, held_out_blocks(lines, offset=2)).typing
        uri = editor.uri(f"{HELD_OUT_PACKAGE}/{HELD_OUT_FILES[0]}")
        task = f"Explain, function by function, what {HELD_OUT_PACKAGE}/{HELD_OUT_FILES[0]} does."
        job = editor.client.request(
            "workspace/executeCommand",
            {"command": "lspAgent.run", "arguments": [{"task": task, "uri": uri}]},
        )
        time.sleep(JOB_HEAD_START_S)  # the agent's first prompt is being read
        during = _typed(editor, held_out_blocks(lines, offset=3))
        busy = during.typing
        running = bool(
            editor.client.request(
                "workspace/executeCommand", {"command": "lspAgent.status", "arguments": []}
            ).get("jobs")
        )
        editor.client.request(
            "workspace/executeCommand",
            {"command": "lspAgent.cancel", "arguments": [{"jobId": job["jobId"]}]},
        )
    finally:
        editor.client.close()
    return {
        "idle_p50_ms": statistics.median(idle) if idle else float("nan"),
        "during_job_p50_ms": statistics.median(busy) if busy else float("nan"),
        "during_job_max_ms": max(busy, default=float("nan")),
        "during_job_requests": len(during.waited),
        "during_job_delayed": sum(wait > 0.5 for wait in during.waited),
        "during_job_wait_p50_ms": statistics.median(during.waited or [float("nan")]),
        "during_job_wait_max_ms": max(during.waited, default=float("nan")),
        "job_running_at_end": float(running),
    }


def _copy_held_out(root: Path) -> None:
    package = importlib.import_module(HELD_OUT_PACKAGE)
    source = Path(str(package.__file__)).parent
    (root / HELD_OUT_PACKAGE).mkdir()
    for name in HELD_OUT_FILES:
        (root / HELD_OUT_PACKAGE / name).write_bytes((source / name).read_bytes())


def measure(runs: int, options: BenchOptions) -> dict[str, Any]:
    model = options.models[0] if options.models else DEFAULT_MODEL
    settings, _ = (
        user_scope_settings()
    )  # COMPLETION_API_BASE and the knobs, as the server reads them
    config = replace(settings.completion_config(), model_id=model, debounce_ms=0)
    try:
        kind = config.kind
    except CompletionModelError as exc:
        raise BenchError(str(exc), exit_status=2) from exc
    figures: dict[str, Any] = {"model": model}
    with tempfile.TemporaryDirectory(prefix="lsp-bench-complete-") as tmp:
        root = Path(tmp)
        _copy_held_out(root)
        editor = _start(root, _environment(model, {}))
        record = Record()
        try:
            _typing_session(editor, held_out_blocks(runs), record)
            _progress(f"typing session: {len(record.typing)} requests", record.typing)
            lsp_matches, asked = _quality(editor, QUALITY_PER_RUN * runs)
            _progress(f"next line: {lsp_matches} of {len(asked)} exact", [])
        finally:
            editor.client.close()
        direct, direct_matches = asyncio.run(_direct(config, record, asked))
        _progress("straight to the backend", direct)
        typing_p50 = statistics.median(record.typing) if record.typing else float("nan")
        direct_p50 = statistics.median(direct) if direct else float("nan")
        figures.update(
            {
                "typing_requests": len(record.typing),
                "typing_p50_ms": typing_p50,
                "typing_p90_ms": _percentile(record.typing, 0.90),
                "in_line_requests": len(record.in_line),
                "in_line_p50_ms": _percentile(record.in_line, 0.50),
                "in_line_p90_ms": _percentile(record.in_line, 0.90),
                "in_line_prompt_tokens_p50": _percentile(
                    [r for r, _ in record.in_line_tokens], 0.5
                ),
                "in_line_cached_tokens_p50": _percentile(
                    [c for _, c in record.in_line_tokens], 0.5
                ),
                "keystrokes": len(record.keystrokes),
                "keystroke_p50_ms": _percentile(record.keystrokes, 0.50),
                "keystroke_p90_ms": _percentile(record.keystrokes, 0.90),
                "typing_p95_ms": _percentile(record.typing, 0.95),
                "first_request_ms": statistics.median(record.first)
                if record.first
                else float("nan"),
                "first_requests": len(record.first),
                "jumps": len(record.jumps),
                "jump_p50_ms": _percentile(record.jumps, 0.50),
                "jump_max_ms": max(record.jumps, default=float("nan")),
                "line_start_p50_ms": _percentile(record.line_starts, 0.50),
                "line_start_p90_ms": _percentile(record.line_starts, 0.90),
                "direct_p50_ms": direct_p50,
                "direct_p90_ms": _percentile(direct, 0.90),
                "direct_p95_ms": _percentile(direct, 0.95),
                "overhead_pct": (typing_p50 - direct_p50) / direct_p50 * 100,
                "cache_requests": len(record.cache),
                "cache_hits": record.cache_hits,
                "cache_p50_ms": statistics.median(record.cache) if record.cache else float("nan"),
                "cache_max_ms": max(record.cache, default=float("nan")),
                "prompt_tokens_p50": statistics.median(record.prompt_tokens or [float("nan")]),
                "prompt_tokens_p90": _percentile(record.prompt_tokens, 0.90),
                "cached_tokens_p50": statistics.median(record.cached_tokens or [float("nan")]),
                "code_action_p99_ms": _percentile(record.code_actions, 0.99),
                "quality_positions": len(asked),
                "exact_match_lsp": lsp_matches / len(asked),
                "exact_match_direct": direct_matches / len(asked),
            }
        )
        if kind == "embedded":
            figures.update(_during_job(root, model, max(2, runs // 2)))
    return figures
