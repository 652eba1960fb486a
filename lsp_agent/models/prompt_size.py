"""The one characters-per-token ratio every cheap token estimate uses (no imports, so the
language server can size text without loading the agent)."""

# Conservative for dense code (measured 2.3 chars/token with a small BPE vocabulary; larger
# tokenizers pack more). `lsp-agent bench context` counts real tokens.
CHARS_PER_TOKEN = 2.2
