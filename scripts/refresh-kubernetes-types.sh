#!/usr/bin/env bash
# Replaces the tables generated from Kubernetes' Go types, from k8s.io/api, k8s.io/apimachinery and
# k8s.io/apiextensions-apiserver at one release tag (the three may be given as checkouts already made):
# - the protobuf messages the devcluster decodes request bodies with
#   (apiserver/protobuf/kubernetes/messages.json, scripts/kubernetes-protobuf-messages.mjs) and the
#   round-trip samples its test checks that table against
#   (test/apiserver/fixtures/kubernetes-roundtrip.json.gz: kube's own testdata/HEAD, an object of
#   every kind in JSON and protobuf);
# - the fields Go's encoding/json prints for them when zero
#   (apiserver/go-json/kubernetes/fields.json, scripts/kubernetes-go-json-fields.mjs).
#
#   scripts/refresh-kubernetes-types.sh v0.33.0 [API_DIR APIMACHINERY_DIR APIEXTENSIONS_DIR]
#
# Then run test/apiserver/protobuf*.test.ts, test/translate/protobuf-body.test.ts,
# test/apiserver/go-zero-fields.test.ts and the devcluster's tests.
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

# Both tables are made before either file is replaced: a generator that stops leaves both as they were.
messages="$root/apiserver/protobuf/kubernetes/messages.json"
fields="$root/apiserver/go-json/kubernetes/fields.json"
node "$root/scripts/kubernetes-protobuf-messages.mjs" "$release" "$api" "$apimachinery" "$apiextensions" > "$work/messages.json"
node "$root/scripts/kubernetes-go-json-fields.mjs" "$release" "$api" "$apimachinery" "$apiextensions" > "$work/fields.json"
mv "$work/messages.json" "$messages"
mv "$work/fields.json" "$fields"
echo "wrote $messages and $fields"

# kube's round-trip testdata of every kind in the table that has one: { "<group>.<version>.<Kind>": { pb, json } }.
node -e '
  const fs = require("node:fs");
  const [table, testdata, target] = process.argv.slice(1);
  const samples = {};
  for (const key of Object.keys(JSON.parse(fs.readFileSync(table, "utf8")).kinds)) {
    const parts = key.split("/");
    const name = [parts.length === 2 ? "core" : parts[0], ...parts.slice(-2)].join(".");
    if (!fs.existsSync(`${testdata}/${name}.pb`)) continue;
    samples[name] = {
      pb: fs.readFileSync(`${testdata}/${name}.pb`).toString("base64"),
      json: JSON.parse(fs.readFileSync(`${testdata}/${name}.json`, "utf8")),
    };
  }
  fs.writeFileSync(target, require("node:zlib").gzipSync(JSON.stringify(samples), { level: 9 }));
  console.log(`wrote ${target} (${Object.keys(samples).length} kinds)`);
' "$messages" "$api/testdata/HEAD" "$root/test/apiserver/fixtures/kubernetes-roundtrip.json.gz"
