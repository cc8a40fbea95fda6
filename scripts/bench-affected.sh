#!/usr/bin/env bash
# bench-affected.sh: `routeguard argocd diff` of a generated monorepo of N
# Argo CD Applications (internal/synth/monorepo: an app of apps; Helm apps on
# a shared chart with values files outside it, Kustomize overlays over ten
# shared bases, plain directories; one shared Gateway), full
# (--base) against affected-only (--changed-from), side by side in one
# farm-bench run per change: one app's weights, then one shared Kustomize
# base (a tenth of the Kustomize apps). Prints farm-bench's tables; A is
# affected-only, B the full review. Checks first that both reviews are the
# same (JSON without the counts).
#
#   scripts/bench-affected.sh            # N=2000, 3 runs
#   N=300 RUNS=1 scripts/bench-affected.sh
#
# Needs: go, git, farm-bench, python3.
set -euo pipefail

cd "$(dirname "$0")/.."
N=${N:-2000}
RUNS=${RUNS:-3}
export GOFLAGS=${GOFLAGS:--buildvcs=false} CGO_ENABLED=${CGO_ENABLED:-0}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

go build -o "$WORK/routeguard" ./cmd/routeguard
RG=$WORK/routeguard
REPO=$WORK/repo
mkdir -p "$REPO"
go run ./internal/synth/monorepo/gen -n "$N" -o "$REPO"
cd "$REPO"
git init -q
git add -A
git -c user.email=bench@example.com -c user.name=bench commit -qm base
sed -i 's/weight: 90/weight: 50/' values/app-0003.yaml
git -c user.email=bench@example.com -c user.name=bench commit -qam "one app's weights"
sed -i 's/port: 80}/port: 81}/' bases/base-1/services.yaml
git -c user.email=bench@example.com -c user.name=bench commit -qam "a shared base"
URL=https://git.example.com/platform/monorepo.git

for change in "HEAD~2 HEAD~1 one app's weights" "HEAD~1 HEAD a shared base"; do
  read -r base head what <<<"$change"
  full=("$RG" argocd diff --repo-url "$URL" --base "$base" --head "$head" argocd/root.yaml)
  aff=("$RG" argocd diff --repo-url "$URL" --changed-from "$base" --head "$head" argocd/root.yaml)
  "${full[@]}" -o json >"$WORK/full.json" 2>/dev/null || true
  "${aff[@]}" -o json >"$WORK/aff.json" 2>"$WORK/aff.err" || true
  python3 - "$WORK/full.json" "$WORK/aff.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
ca, cb = a.pop("apps"), b.pop("apps")
print("full:", ca, "\naffected-only:", cb)
sys.exit(0 if a == b else "the affected-only review differs from the full review")
PY
  echo "## $what ($N Applications)"
  farm-bench -n "$RUNS" --warmup 0 --timeout 3000 --vs "${full[*]}" -- "${aff[@]}"
done
