#!/usr/bin/env bash
# bench-flux-shard.sh: `routeguard flux diff --shard I/4` of the Flux tree
# benchmark's generated repository (scripts/gen-flux-tree.sh; APPS app
# Kustomizations, RELEASES HelmReleases: half with the chart in Git, half
# from a HelmRepository, not fetched: the shards take no --chart-cache) with
# a one-app change (an HTTPRoute's backend port), against the unsharded
# review. Checks first that `routeguard report merge` of the four shard
# files, named out of order, prints the unsharded JSON review byte for
# byte, then times, RUNS times in turn, the unsharded review and each shard
# (paired: full, shard 1, full, shard 2, ...) and the merge with GNU time.
# The temporary directory (where both revisions are exported) is $TMPDIR.
#
#   scripts/bench-flux-shard.sh                        # APPS=400 RELEASES=200 RUNS=1
#   APPS=1000 RELEASES=500 RUNS=2 scripts/bench-flux-shard.sh
#   TMPDIR=/dev/shm RG=bin/routeguard scripts/bench-flux-shard.sh
#
# Needs: go, git, GNU time (/usr/bin/time), cmp, awk.
set -euo pipefail

cd "$(dirname "$0")/.."
SCRIPTS=$PWD/scripts
APPS=${APPS:-400}
RELEASES=${RELEASES:-200}
RUNS=${RUNS:-1}
export GOFLAGS=${GOFLAGS:--buildvcs=false} CGO_ENABLED=${CGO_ENABLED:-0}
# shellcheck source=scripts/shard-timing.sh
. "$SCRIPTS/shard-timing.sh"
bench_setup
REPO=$WORK/repo
scripts/gen-flux-tree.sh "$REPO" "$APPS" "$RELEASES" >/dev/null
cd "$REPO"
git init -q && git add -A && git -c user.name=bench -c user.email=bench@example.com commit -qm base
sed -i -E 's/port: [0-9]+\}/port: 8181}/' apps/team-1/app-1/app/httproute.yaml
git diff --quiet && { echo "bench-flux-shard: the one-app edit changed nothing" >&2; exit 2; }
git -c user.name=bench -c user.email=bench@example.com commit -qam "one app"
echo "$(git ls-files | wc -l) files; $APPS app Kustomizations, $RELEASES HelmReleases"
full=("$RG" flux diff --base HEAD~1 --head HEAD clusters/bench)

"${full[@]}" -o json >"$WORK/full.json" 2>/dev/null || true
for i in 1 2 3 4; do "${full[@]}" --shard "$i/4" --shard-out "$WORK/shard-$i.json" 2>/dev/null; done
"$RG" report merge -o json "$WORK"/shard-{3,1,4,2}.json >"$WORK/merged.json" 2>/dev/null || true
cmp "$WORK/full.json" "$WORK/merged.json"
echo "merged == unsharded ($(wc -c <"$WORK/full.json") bytes of JSON); shard files: $(du -ch "$WORK"/shard-*.json | tail -1 | cut -f1)"

time_shards
