#!/usr/bin/env bash
# The whole check, as the README's Quick start runs it: lint, format, types, tests.
# Run inside the project environment (`uv run bash tests/check.sh`).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== ruff check"; ruff check .
echo "== ruff format --check"; ruff format --check .
echo "== mypy"; mypy
echo "== phoenix environment"; lsp-agent phoenix --setup-only
echo "== VS Code extension (npm ci, tsc, mocha, .vsix)"; bash editors/vscode/scripts/check.sh
echo "== ACP test client (npm ci)"; npm ci --prefix tests/acp/client --no-audit --no-fund
echo "== pytest"; pytest "$@"
