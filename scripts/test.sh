#!/usr/bin/env bash
# The test command (README, .ci/run): installs what the tests need on a fresh machine, builds,
# and runs every tier of tests (unit, stage, e2e, jobs: lint and format checks included). Extra
# arguments narrow the run: `--tier <name>`, a test-file substring, then a title grep.
# `npm run test:unit` (and test:stage, test:e2e, test:jobs) runs one tier without the install.
set -euo pipefail
cd "$(dirname "$0")/.."

# etcd, haproxy (bench-quick's `get` floor), promtool, Python's kubernetes client, jemalloc.
bash scripts/prerequisites.sh

npm ci --no-audit --no-fund
npm run build
node --enable-source-maps dist/test/run.js "$@"
