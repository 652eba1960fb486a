"""Approvals in a terminal: show what would change, ask y / n / show.

Commands, reasons and diffs are shown as data (`lsp_agent.cli.terminal_text`): Rich markup
in them is escaped, terminal escape sequences and bidi characters are shown escaped.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import Console
from rich.syntax import Syntax

from lsp_agent.cli.terminal_text import inert
from safety.approval_flags import visible
from safety.approvals import ApprovalKind, Outcome, Status
from tools.approval_gate import ApprovalAsk

Prompt = Callable[[str], str]


class TerminalGate:
    """Asks the person at the terminal. Anything but yes is a no; nothing runs unasked."""

    def __init__(self, console: Console, prompt: Prompt = input) -> None:
        self.console = console
        self.prompt = prompt

    def _show(self, ask: ApprovalAsk) -> None:
        if ask.kind is ApprovalKind.PATCH:
            self.console.print(Syntax(visible(ask.content), "diff", background_color="default"))
            self.console.print(f"[bold]sandbox[/bold] {inert(ask.details)}")
        else:
            self.console.print(f"[bold]command[/bold] {inert(ask.content)}")
            if ask.details:
                self.console.print(inert(ask.details))

    def ask(self, ask: ApprovalAsk) -> Outcome:
        self.console.print(f"\n[bold yellow]Approval needed:[/bold yellow] {inert(ask.summary)}")
        if ask.kind is ApprovalKind.PATCH:
            self._show(ask)
        while True:
            try:
                answer = self.prompt("Approve? [y]es / [n]o / [s]how: ").strip().lower()
            except EOFError:
                answer = "n"
            if answer in ("s", "show"):
                self._show(ask)
                continue
            approved = answer in ("y", "yes")
            status = Status.APPROVED if approved else Status.REJECTED
            reason = "approved at the terminal" if approved else "the user said no"
            return Outcome("terminal", status, by="terminal", reason=reason, at=time.time())
