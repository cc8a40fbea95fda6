#!/usr/bin/env bash
# demo.sh: what `make demo` runs: render and analyze every bundled example
# app with the routeguard binary given as $1 (default bin/routeguard), as
# Argo CD's plugin would, then the broken apps, then Flux's build.
set -euo pipefail
bin=${1:-bin/routeguard}
cd "$(dirname "$0")/.."

summary() { grep -E '^(no findings|[0-9]+ errors?,)' || true; }

# app path and the flags its Argo CD Application implies
apps=(
  "examples/apps/frontend/overlays/prod"
  "examples/apps/backend --namespace shop-prod -f values-prod.yaml"
  "examples/apps/reviews"
  "examples/apps/edge"
  "examples/apps/routing/gateways"
  "examples/apps/routing/istio"
  "examples/apps/routing/ingresses"
)

echo "== routeguard render + analyze, every example app"
for spec in "${apps[@]}"; do
  read -r -a args <<<"$spec"
  n=$("$bin" render "${args[@]}" | grep -c '^kind:')
  verdict=$("$bin" analyze "${args[@]}" | summary)
  printf '  %-40s %2d objects   %s\n' "${args[0]}" "$n" "$verdict"
done

echo
echo "== the Helm + Kustomize app (helmCharts inflated without a helm binary), first objects:"
"$bin" render examples/apps/edge | head -24

echo
echo "== routeguard analyze on the broken apps (each must fail with the findings its comments promise)"
for app in examples/broken/*/; do
  set +e
  case "$app" in
  */argocd-project-*) "$bin" argocd analyze "$app" 2>/dev/null | grep -E '^  ' ;; # AppProject rules: an Argo CD repository
  *) "$bin" analyze "$app" | grep -E '^  ' ;;
  esac
  code=${PIPESTATUS[0]}
  set -e
  echo "  -> exit $code"
done

echo
echo "== routeguard flux build --all examples/flux/clusters/prod (what Flux would apply, analyzed)"
"$bin" flux build --all examples/flux/clusters/prod --report text | tail -3

echo
echo "== routeguard flux build --all examples/flux/clusters/home (the home-lab shape: per-app Kustomizations, HelmReleases)"
set +e
"$bin" flux build --all examples/flux/clusters/home 2>&1 >/dev/null | grep -E '^routeguard: flux build:|errors?,'; echo "  (skips and the charts that need --allow-network are infos: routeguard flux build --all examples/flux/clusters/home)"
echo "  -> exit ${PIPESTATUS[0]}"
set -e

echo
echo "== routeguard argocd analyze examples/argocd (every Application and ApplicationSet, analyzed per cluster)"
set +e
"$bin" argocd analyze examples/argocd 2>&1 | grep -E '^routeguard: argocd|errors?,'; echo "  (findings: routeguard argocd analyze examples/argocd)"
echo "  -> exit ${PIPESTATUS[0]}"
set -e

echo
echo "== routeguard map examples/apps/routing/gateways (the route table a reviewer reads; -o mermaid or -o svg draw it)"
"$bin" map examples/apps/routing/gateways | head -12
echo "  (routeguard diff --base REF PATH compares two revisions at this level: docs/diff.md)"
