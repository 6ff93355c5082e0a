#!/usr/bin/env bash
# Installs the nested framework-agent projects from their lockfiles (README.md says why they are
# nested: @ag-ui/mastra declares CopilotKit's runtime as a peer, which these tests never load).
set -euo pipefail
cd "$(dirname "$0")"
for project in mastra copilotkit; do
  echo "--- npm ci in test/framework-agents/$project"
  (cd "$project" && npm ci --no-audit --no-fund --loglevel=error)
done
