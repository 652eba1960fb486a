#!/usr/bin/env bash
# The VS Code extension's whole check: a clean install from the lock file, types, tests, the .vsix.
# Called by the repository's tests/check.sh; runs from any directory.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== npm ci";      npm ci --prefer-offline --no-audit --no-fund
echo "== typecheck";   npm run --silent typecheck
echo "== test";        npm test --silent
echo "== package";     npm run --silent package
ls -l lsp-agent.vsix
