#!/usr/bin/env bash
# The test command (README, .ci/run): installs what the tests need on a fresh machine, builds,
# and runs every test, lint and format checks included (test/lint/). Extra arguments narrow the
# run: a test-file substring, then a title grep.
set -euo pipefail
cd "$(dirname "$0")/.."

# etcd, haproxy (bench-quick's `get` floor), promtool, Python's kubernetes client, jemalloc.
bash scripts/prerequisites.sh

npm ci --no-audit --no-fund
npm run build
node --enable-source-maps dist/test/run.js "$@"
