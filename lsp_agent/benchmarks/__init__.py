"""Benchmarks behind `lsp-agent bench`."""
