#!/usr/bin/env bash
# Installs the nested client projects (each pins its own @ag-ui/client, so each has its own
# node_modules) from their lockfiles. Flags live in each project's .npmrc (legacy-peer-deps for
# CopilotKit 1.75, whose runtime declares peers it does not need here).
set -euo pipefail
cd "$(dirname "$0")"
for project in copilotkit-175 copilotkit-175-agui1 copilotkitnext-154 mcp-inspector; do
  echo "--- npm ci in test/clients/$project"
  (cd "$project" && npm ci --no-audit --no-fund --loglevel=error)
done
