#!/usr/bin/env bash
# demo.sh: render every bundled example app with the routeguard binary given
# as $1 (default bin/routeguard), as `make demo` does, and summarise.
set -euo pipefail
bin=${1:-bin/routeguard}
cd "$(dirname "$0")/.."

render() { # path [flags...]
  local path=$1; shift
  local out
  if ! out=$("$bin" render "$path" "$@"); then
    echo "FAILED: routeguard render $path $*" >&2
    exit 1
  fi
  printf '%-44s %3d objects  (%s)\n' "$path" "$(grep -c '^kind:' <<<"$out")" "$("$bin" version | cut -d' ' -f1-2)"
}

echo "== routeguard render on examples/"
render examples/apps/frontend/overlays/prod
render examples/apps/backend --namespace shop-prod -f values-prod.yaml
render examples/apps/reviews
render examples/apps/edge
render examples/apps/routing/gateways
render examples/apps/routing/istio
render examples/apps/routing/ingresses
render examples/flux/apps/status-page
echo
echo "== the Helm + Kustomize app (helmCharts, no helm binary needed):"
"$bin" render examples/apps/edge | head -40
if "$bin" --help | grep -q '^  analyze'; then
  echo
  echo "== routeguard analyze on a broken app (expect findings and exit 1):"
  set +e
  "$bin" analyze examples/broken/dangling-service
  echo "exit code: $?"
fi
