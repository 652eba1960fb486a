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
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from lsp_agent.benchmarks.completion.editor import server_environment, start_editor
from lsp_agent.benchmarks.completion.held_out import (
    HELD_OUT_FILES,
    HELD_OUT_PACKAGE,
    copy_held_out,
    held_out_blocks,
)
from lsp_agent.benchmarks.completion.session import (
    Record,
    direct,
    percentile,
    progress,
    quality,
    typed,
    typing_session,
)
from lsp_agent.benchmarks.runner import BenchError, BenchOptions
from lsp_agent.completion.config import CompletionModelError
from lsp_agent.settings import user_scope_settings

DEFAULT_MODEL = "embedded:qwen2.5-coder-1.5b"
QUALITY_PER_RUN = 3  # next-line positions per typed block
JOB_HEAD_START_S = 5.0


def _during_job(root: Path, model: str, lines: int) -> dict[str, float]:
    """Completions with no job, then while an agent job runs on the same loaded model."""
    editor = start_editor(
        root, server_environment(model, {"MODEL_ID": model, "AGENT_MAX_STEPS": "50"})
    )
    try:
        idle = typed(editor, held_out_blocks(lines, offset=2)).typing
        uri = editor.uri(f"{HELD_OUT_PACKAGE}/{HELD_OUT_FILES[0]}")
        task = f"Explain, function by function, what {HELD_OUT_PACKAGE}/{HELD_OUT_FILES[0]} does."
        job = editor.client.request(
            "workspace/executeCommand",
            {"command": "lspAgent.run", "arguments": [{"task": task, "uri": uri}]},
        )
        time.sleep(JOB_HEAD_START_S)  # the agent's first prompt is being read
        during = typed(editor, held_out_blocks(lines, offset=3))
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
        copy_held_out(root)
        editor = start_editor(root, server_environment(model, {}))
        record = Record()
        try:
            typing_session(editor, held_out_blocks(runs), record)
            progress(f"typing session: {len(record.typing)} requests", record.typing)
            lsp_matches, asked = quality(editor, QUALITY_PER_RUN * runs)
            progress(f"next line: {lsp_matches} of {len(asked)} exact", [])
        finally:
            editor.client.close()
        direct_ms, direct_matches = asyncio.run(direct(config, record, asked))
        progress("straight to the backend", direct_ms)
        typing_p50 = statistics.median(record.typing) if record.typing else float("nan")
        direct_p50 = statistics.median(direct_ms) if direct_ms else float("nan")
        figures.update(
            {
                "typing_requests": len(record.typing),
                "typing_p50_ms": typing_p50,
                "typing_p90_ms": percentile(record.typing, 0.90),
                "in_line_requests": len(record.in_line),
                "in_line_p50_ms": percentile(record.in_line, 0.50),
                "in_line_p90_ms": percentile(record.in_line, 0.90),
                "in_line_prompt_tokens_p50": percentile([r for r, _ in record.in_line_tokens], 0.5),
                "in_line_cached_tokens_p50": percentile([c for _, c in record.in_line_tokens], 0.5),
                "keystrokes": len(record.keystrokes),
                "keystroke_p50_ms": percentile(record.keystrokes, 0.50),
                "keystroke_p90_ms": percentile(record.keystrokes, 0.90),
                "typing_p95_ms": percentile(record.typing, 0.95),
                "first_request_ms": statistics.median(record.first)
                if record.first
                else float("nan"),
                "first_requests": len(record.first),
                "jumps": len(record.jumps),
                "jump_p50_ms": percentile(record.jumps, 0.50),
                "jump_max_ms": max(record.jumps, default=float("nan")),
                "line_start_p50_ms": percentile(record.line_starts, 0.50),
                "line_start_p90_ms": percentile(record.line_starts, 0.90),
                "direct_p50_ms": direct_p50,
                "direct_p90_ms": percentile(direct_ms, 0.90),
                "direct_p95_ms": percentile(direct_ms, 0.95),
                "overhead_pct": (typing_p50 - direct_p50) / direct_p50 * 100,
                "cache_requests": len(record.cache),
                "cache_hits": record.cache_hits,
                "cache_p50_ms": statistics.median(record.cache) if record.cache else float("nan"),
                "cache_max_ms": max(record.cache, default=float("nan")),
                "prompt_tokens_p50": statistics.median(record.prompt_tokens or [float("nan")]),
                "prompt_tokens_p90": percentile(record.prompt_tokens, 0.90),
                "cached_tokens_p50": statistics.median(record.cached_tokens or [float("nan")]),
                "code_action_p99_ms": percentile(record.code_actions, 0.99),
                "quality_positions": len(asked),
                "exact_match_lsp": lsp_matches / len(asked),
                "exact_match_direct": direct_matches / len(asked),
            }
        )
        if kind == "embedded":
            figures.update(_during_job(root, model, max(2, runs // 2)))
    return figures
