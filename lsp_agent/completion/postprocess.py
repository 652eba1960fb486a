"""Where a completion stops, and what of it is worth showing (llama.vim's and llama.vscode's rules).

`stop_index` is checked while the model writes (embedded, Ollama's stream) and again on what
any backend returned:
- text after the cursor on its line: the completion ends with the line;
- a line less indented than the cursor line (llama.vim's `n_indent`): the block has ended;
  blank lines do not decide;
- a whole line equal to the next non-blank line of the document: the model has filled the gap
  and started re-typing what follows.

`finish` then trims and discards:
- trailing blank lines; on a whitespace-only cursor line, the indentation already typed;
- with text after the cursor, only the first line, without the line's rest if the model
  repeated it (`foo(a, b)` before `)` becomes `foo(a, b`);
- trailing lines that repeat the lines after the cursor;
- nothing at all when the text only re-types what is there (the rest of the line, the next
  line, the next lines) or is only whitespace.
"""

from __future__ import annotations

from lsp_agent.completion.context import FimContext


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _following(ctx: FimContext) -> list[str]:
    """The document lines after the cursor line, from the first non-blank one."""
    lines = list(ctx.next_lines)
    while lines and not lines[0].strip():
        lines.pop(0)
    return lines


def stop_index(text: str, ctx: FimContext) -> int | None:
    """Where to cut `text` (the model's output so far), or None to let it go on."""
    if ctx.single_line:
        end = text.find("\n")
        return end if end >= 0 else None
    following = _following(ctx)
    repeat = following[0].rstrip() if following else None
    start = text.find("\n") + 1
    while start > 0:
        end = text.find("\n", start)
        line = text[start:] if end < 0 else text[start:end]
        if line.strip():
            if ctx.indent > 0 and _indent(line) < ctx.indent:
                return start
            if end >= 0 and line.rstrip() == repeat:
                return start
        if end < 0:
            return None
        start = end + 1
    return None


def _drop_typed_indent(first: str, ctx: FimContext) -> str:
    """On a whitespace-only line the model wrote the indentation: drop what is typed."""
    typed = len(ctx.line_prefix)
    lead = min(_indent(first), typed)
    return first[lead:]


def _retypes(lines: list[str], first_full: str, ctx: FimContext) -> bool:
    """llama.vim's checks: the suggestion only repeats text that is already there."""
    after = list(ctx.next_lines)
    if len(lines) == 1 and lines[0] == ctx.line_suffix:
        return True
    if len(lines) > 1 and not lines[0].strip() and lines[1:] == after[: len(lines) - 1]:
        return True
    following = _following(ctx)
    if not following or first_full != following[0]:
        return False
    if len(lines) == 1:
        return True
    rest = following[1:]
    if len(lines) == 2:
        return bool(rest) and rest[0][: len(lines[1])] == lines[1]
    return lines[1:] == rest[: len(lines) - 1]


def _trim_repeated_tail(lines: list[str], ctx: FimContext) -> list[str]:
    following = [line.rstrip() for line in _following(ctx)]
    for count in range(min(len(lines) - 1, len(following)), 0, -1):
        if [line.rstrip() for line in lines[-count:]] == following[:count]:
            return lines[:-count]
    return lines


def finish(raw: str, ctx: FimContext) -> str | None:
    """The text to insert at the cursor, or None when nothing is worth showing."""
    cut = stop_index(raw, ctx)
    lines = (raw if cut is None else raw[:cut]).split("\n")
    while len(lines) > 1 and not lines[-1].strip():
        lines.pop()
    if ctx.single_line:
        first = lines[0]
        if first.endswith(ctx.line_suffix) and first != ctx.line_suffix:
            first = first[: len(first) - len(ctx.line_suffix)]
        lines = [first]
    # On a blank line the model usually writes the indentation itself.
    wrote_indent = ctx.blank_line and lines[0][:1] in (" ", "\t")
    first_full = lines[0] if wrote_indent else ctx.line_prefix + lines[0]
    if ctx.blank_line:
        lines[0] = _drop_typed_indent(lines[0], ctx)
    if _retypes(lines, first_full, ctx):
        return None
    lines = _trim_repeated_tail(lines, ctx)
    text = "\n".join(lines)
    return text if text.strip() else None
