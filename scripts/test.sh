#!/usr/bin/env bash
# The test command (README, .ci/run): installs what the tests need on a fresh machine, builds,
# and runs every test, lint and format checks included (test/lint/). Extra arguments narrow the
# run: a test-file substring, then a title grep.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v etcd >/dev/null 2>&1; then
  echo "etcd not found: installing Debian's etcd-server"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y etcd-server
fi

# test/bench/bench-quick.test.ts runs `get`, whose floor is HAProxy (bench/harness/haproxy.ts).
if ! command -v haproxy >/dev/null 2>&1 && [ ! -x /usr/sbin/haproxy ]; then
  echo "haproxy not found: installing Debian's haproxy"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y haproxy
fi

# test/gateway/metrics.test.ts lints /metrics with promtool, which Debian ships in prometheus
# (only promtool is used; the Prometheus server the package brings is not).
if ! command -v promtool >/dev/null 2>&1; then
  echo "promtool not found: installing Debian's prometheus"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus
fi

if ! /usr/bin/python3 -c 'import kubernetes' >/dev/null 2>&1; then
  echo "Python's kubernetes client not found: installing Debian's python3-kubernetes"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y python3-kubernetes
fi

# test/gateway/launcher.test.ts: bin/paddock preloads jemalloc when the system has it.
if [ ! -r /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ] && [ ! -r /usr/lib/aarch64-linux-gnu/libjemalloc.so.2 ]; then
  echo "libjemalloc2 not found: installing Debian's libjemalloc2"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y libjemalloc2
fi

npm ci --no-audit --no-fund
npm run build
node --enable-source-maps dist/test/run.js "$@"
