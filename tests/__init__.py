from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
"""The repository's root, wherever in the tests' folders a test file lives."""
