"""Text from the model or the repository, made safe to print on a Rich console.

Such text is data, never markup or terminal control: `[conceal]` or `[/]` must show as
typed, and an escape sequence (`ESC [2K` erases a line) or a bidi override must not act on
the terminal. Control, bidi and zero-width characters are shown as escapes (`\\x1b`,
`\\u202e`) by `safety.approval_flags.visible`, then Rich markup is escaped.
"""

from __future__ import annotations

from rich.markup import escape

from safety.approval_flags import visible


def inert(text: str) -> str:
    """`text` for `console.print`: no markup, no terminal control, nothing hidden."""
    return escape(visible(text))
