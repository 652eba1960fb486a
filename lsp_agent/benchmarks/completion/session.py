"""The typing session (what it saw, request by request), the next-line quality positions and
the same requests sent straight to the backend."""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import dataclass, field

from lsp_agent.benchmarks.completion.editor import Editor
from lsp_agent.benchmarks.completion.held_out import Target, held_out_lines, typing_steps
from lsp_agent.completion import CompletionQuery, CompletionService, open_backend
from lsp_agent.completion.config import CompletionConfig


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


def percentile(samples: list[float], fraction: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def typing_session(editor: Editor, blocks: list[list[Target]], record: Record) -> None:
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


def typed(editor: Editor, blocks: list[list[Target]]) -> Record:
    """A typing session's record (latencies: the first request of each block left out)."""
    record = Record()
    typing_session(editor, blocks, record)
    return record


def quality(editor: Editor, count: int) -> tuple[int, list[tuple[CompletionQuery, str]]]:
    matches = 0
    asked: list[tuple[CompletionQuery, str]] = []
    ignored: list[float] = []
    for target in held_out_lines(count, offset=1):
        uri, lines = editor.show(target, target.indent)
        _, text = editor.ask(uri, target.line, len(target.indent), invoked=True, actions=ignored)
        matches += _first_line(text) == target.text.strip()
        asked.append((editor.query(uri, lines, target.line, len(target.indent), True), target.text))
    return matches, asked


def _first_line(text: str) -> str:
    return text.strip("\n").split("\n", 1)[0].strip()


async def direct(
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


def progress(what: str, samples: list[float]) -> None:
    """A line on stderr as each phase ends (a run takes minutes on a CPU)."""
    median = f", p50 {statistics.median(samples):.0f} ms" if samples else ""
    print(f"bench complete: {what}{median}", file=sys.stderr, flush=True)
