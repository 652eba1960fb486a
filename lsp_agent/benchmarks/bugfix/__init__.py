"""Bug-fix tasks of the kind users bring, and `lsp-agent bench bugfix`."""
