#!/usr/bin/env bash
# Replaces the table of the fields Go's encoding/json prints for Kubernetes' types when they are
# zero (apiserver/go-json/kubernetes/fields.json), from k8s.io/api, k8s.io/apimachinery and
# k8s.io/apiextensions-apiserver at one release tag. The three may be given as checkouts already made.
#
#   scripts/refresh-kubernetes-go-json.sh v0.33.0 [API_DIR APIMACHINERY_DIR APIEXTENSIONS_DIR]
#
# Then run test/apiserver/go-zero-fields.test.ts and the devcluster's tests.
set -euo pipefail

release="${1:?usage: $0 RELEASE [API_DIR APIMACHINERY_DIR APIEXTENSIONS_DIR], e.g. $0 v0.32.9}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ "$#" -eq 4 ]; then
  api="$2" apimachinery="$3" apiextensions="$4"
else
  for repo in api apimachinery apiextensions-apiserver; do
    git clone --quiet --depth 1 --branch "$release" "https://github.com/kubernetes/${repo}" "$work/$repo"
  done
  api="$work/api" apimachinery="$work/apimachinery" apiextensions="$work/apiextensions-apiserver"
fi

table="$root/apiserver/go-json/kubernetes/fields.json"
node "$root/scripts/kubernetes-go-json-fields.mjs" "$release" "$api" "$apimachinery" "$apiextensions" > "$work/fields.json"
mv "$work/fields.json" "$table"
echo "wrote $table"
