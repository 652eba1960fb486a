"""tools package."""
