"""The `lsp-agent` command and its subcommands (`lsp_agent.cli.main` is the entry point).

Each subcommand lives in its own module, imported lazily so `serve` starts fast.
"""
