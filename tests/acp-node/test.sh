#!/usr/bin/env bash
# The independent ACP client check: installs the TypeScript SDK from the lockfile and runs it.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --silent --no-audit --no-fund
node check.mjs
