#!/usr/bin/env bash
# Replaces the Kubernetes OpenAPI document the devcluster serves its built-in schemas from
# (apiserver/openapi/kubernetes/swagger.json.gz) with the one Kubernetes publishes for a release:
# api/openapi-spec/swagger.json on its release branch. SOURCE may be that file already downloaded.
#
#   scripts/refresh-kubernetes-openapi.sh 1.33 [SOURCE]
#
# Then set KUBERNETES_VERSION in apiserver/openapi/v3.ts and the release named in
# docs/devcluster.md ("OpenAPI") to match, and run test/apiserver/openapi.test.ts.
set -euo pipefail

release="${1:?usage: $0 RELEASE [SOURCE], e.g. $0 1.32}"
source="${2:-https://raw.githubusercontent.com/kubernetes/kubernetes/release-${release}/api/openapi-spec/swagger.json}"
target="$(cd "$(dirname "$0")/.." && pwd)/apiserver/openapi/kubernetes/swagger.json.gz"

spec="$(mktemp)"
trap 'rm -f "$spec"' EXIT
if [ -f "$source" ]; then cp "$source" "$spec"; else curl -fsSL "$source" -o "$spec"; fi

# A document without definitions would leave every kind without a schema.
node -e '
  const spec = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
  const count = Object.keys(spec.definitions ?? {}).length;
  if (spec.swagger !== "2.0" || count === 0) throw new Error("not a Kubernetes OpenAPI v2 document");
  console.log(`${count} definitions`);
' "$spec"
gzip -9 -n -c "$spec" > "$target"
echo "wrote $target (release ${release})"
