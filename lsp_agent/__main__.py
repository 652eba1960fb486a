"""`python -m lsp_agent` is the same as the `lsp-agent` command."""

from lsp_agent.cli.main import main

raise SystemExit(main())
