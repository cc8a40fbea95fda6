#!/usr/bin/env bash
# bench-shard.sh: `routeguard argocd diff --shard I/4` of a generated monorepo
# of N Argo CD Applications (internal/synth/monorepo, as bench-affected.sh),
# one app's weights changed, against the unsharded review. MODE=diff:
# `routeguard diff --shard I/4` of the same repository's app paths (every
# apps/* directory, the chart, the platform) instead. Checks first that
# `routeguard report merge` of the four shard files prints the unsharded
# review byte for byte (JSON), then times, RUNS times in turn, the unsharded
# review and each shard (paired: full, shard 1, full, shard 2, ...), with
# /usr/bin/time, and prints each shard's wall and CPU over the full review's
# of its pair, and the merge's.
#
#   scripts/bench-shard.sh                 # N=1000, RUNS=1
#   N=2000 RUNS=3 scripts/bench-shard.sh
#   RG=bin/routeguard scripts/bench-shard.sh
#   MODE=diff scripts/bench-shard.sh
#
# Needs: go, git, GNU time (/usr/bin/time), cmp, awk.
set -euo pipefail

cd "$(dirname "$0")/.."
SCRIPTS=$PWD/scripts
N=${N:-1000}
MODE=${MODE:-argocd}
RUNS=${RUNS:-1}
export GOFLAGS=${GOFLAGS:--buildvcs=false} CGO_ENABLED=${CGO_ENABLED:-0}
# shellcheck source=scripts/shard-timing.sh
. "$SCRIPTS/shard-timing.sh"
bench_setup
REPO=$WORK/repo
mkdir -p "$REPO"
go run ./internal/synth/monorepo/gen -n "$N" -o "$REPO"
cd "$REPO"
git init -q
git add -A
git -c user.email=bench@example.com -c user.name=bench commit -qm base
case "$MODE" in
  argocd)
    sed -i 's/weight: 90/weight: 50/' values/app-0003.yaml
    URL=https://git.example.com/platform/monorepo.git
    full=("$RG" argocd diff --repo-url "$URL" --base HEAD~1 --head HEAD --now 2026-12-02T00:00:00Z argocd/root.yaml) ;;
  diff)
    sed -i 's/weight: 90/weight: 50/' apps/app-0001/route.yaml
    mapfile -t paths < <(ls -d apps/* charts/web platform)
    echo "routeguard diff of ${#paths[@]} app paths"
    # The head is the work tree, as the Action and the GitLab template
    # run it: only the base revision is exported.
    full=("$RG" diff --base HEAD~1 "${paths[@]}") ;;
  *) echo "MODE must be argocd or diff" >&2; exit 2 ;;
esac
git -c user.email=bench@example.com -c user.name=bench commit -qam "one app's weights"

"${full[@]}" -o json >"$WORK/full.json" 2>/dev/null || true
for i in 1 2 3 4; do "${full[@]}" --shard "$i/4" --shard-out "$WORK/shard-$i.json"; done
"$RG" report merge -o json "$WORK"/shard-{3,1,4,2}.json >"$WORK/merged.json" 2>/dev/null || true
cmp "$WORK/full.json" "$WORK/merged.json"
echo "merged == unsharded ($(wc -c <"$WORK/full.json") bytes of JSON); shard files: $(du -ch "$WORK"/shard-*.json | tail -1 | cut -f1)"

time_shards
