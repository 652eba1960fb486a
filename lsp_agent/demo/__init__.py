"""`lsp-agent demo`: the whole flow on a sample repository, through the real server over stdio.

- `run`: the sample repository, the story told step by step, the verdict (`demo_once`,
  `run_demo`);
- `editor`: the headless editor that asks for code actions, types the task and answers the
  approval question;
- `headless_client`: drives `lsp-agent serve` over stdio (pygls' client).

The CLI (`lsp-agent demo`) and `lsp-agent bench demo` both run it.
"""
