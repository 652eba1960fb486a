"""lsp-agent: an editor-integrated coding agent for small local models."""

__version__ = "0.1.0"
