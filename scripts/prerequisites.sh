#!/usr/bin/env bash
# What the tests and benchmarks run besides Node and npm's packages. Each one named (all without
# arguments: etcd haproxy promtool python3-kubernetes libjemalloc2 curl) is checked; a missing one is
# installed from Debian when this runs as root, or else one line on stderr says what is missing and
# how to get it, and the script exits 1. Used by scripts/test.sh and `npm run bench`.
set -euo pipefail

updated=
# $1: what is missing, $2: the Debian package, then apt-get's extra flags.
install() {
  local what=$1 package=$2
  shift 2
  if [ "$EUID" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "$what not found: install Debian's $package (sudo apt-get install $package), or put $what on the PATH" >&2
    exit 1
  fi
  echo "$what not found: installing Debian's $package"
  # Another apt-get may hold the lock for a while on a shared machine; wait for it.
  local apt=(apt-get -o DPkg::Lock::Timeout=300)
  if [ -z "$updated" ]; then
    "${apt[@]}" update
    updated=1
  fi
  DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y "$@" "$package"
}

check() {
  case "$1" in
    etcd) command -v etcd >/dev/null 2>&1 || install etcd etcd-server ;;
    # Debian puts it in /usr/sbin, which is not on every PATH (bench/harness/haproxy.ts looks there).
    haproxy) command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || install haproxy haproxy ;;
    # test/gateway/metrics.test.ts lints /metrics with promtool, which Debian ships in prometheus
    # (only promtool is used; the Prometheus server the package brings is not).
    promtool) command -v promtool >/dev/null 2>&1 || install promtool prometheus --no-install-recommends ;;
    python3-kubernetes)
      /usr/bin/python3 -c 'import kubernetes' >/dev/null 2>&1 ||
        install "Python's kubernetes client" python3-kubernetes
      ;;
    # test/gateway/launcher.test.ts: bin/paddock preloads jemalloc when the system has it.
    libjemalloc2)
      [ -r /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ] || [ -r /usr/lib/aarch64-linux-gnu/libjemalloc.so.2 ] ||
        install libjemalloc2 libjemalloc2
      ;;
    # test/devcluster/kubectl-part2-e2e.test.ts: curl through kubectl port-forward, as a user tries it.
    curl) command -v curl >/dev/null 2>&1 || install curl curl ;;
    *)
      echo "prerequisites.sh: unknown prerequisite $1 (known: etcd haproxy promtool python3-kubernetes libjemalloc2 curl)" >&2
      exit 2
      ;;
  esac
}

if [ $# -eq 0 ]; then set -- etcd haproxy promtool python3-kubernetes libjemalloc2 curl; fi
for prerequisite in "$@"; do check "$prerequisite"; done
