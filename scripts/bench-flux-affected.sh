#!/usr/bin/env bash
# bench-flux-affected.sh: flux diff --changed-from (affected-only) side by
# side with the full flux diff, in one farm-bench call (paired runs), on the
# Flux tree benchmark's generated repository (scripts/gen-flux-tree.sh: 150
# app Kustomizations, 100 HelmReleases; the chart cache warmed once from a
# loopback chart repository) with a one-app change: the HTTPRoute of
# team-1/app-1 (a HelmRelease with its chart in Git) gets another backend port.
#
#   scripts/bench-flux-affected.sh            # farm-bench -n 5
#   RUNS=3 APPS=300 RELEASES=200 scripts/bench-flux-affected.sh
#
# Needs: go, python3, git, farm-bench. Both reviews are checked to be the
# same (but for the counts line) before timing.
set -euo pipefail

cd "$(dirname "$0")/.."
BENCH=${BENCH_DIR:-$PWD/.bench}/flux-affected
RUNS=${RUNS:-5}
APPS=${APPS:-150}
RELEASES=${RELEASES:-100}
export GOFLAGS=${GOFLAGS:--buildvcs=false}
export CGO_ENABLED=${CGO_ENABLED:-0}
die() { echo "bench-flux-affected: $*" >&2; exit 2; }
mkdir -p "$BENCH/bin"
go build -o "$BENCH/bin/routeguard" ./cmd/routeguard
RG=$BENCH/bin/routeguard

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
REPO=$BENCH/repo
scripts/gen-flux-tree.sh "$REPO" "$APPS" "$RELEASES" "http://127.0.0.1:$PORT"
SERVE=$BENCH/serve
rm -rf "$SERVE" "$BENCH/cache" && mkdir -p "$SERVE"
tar -C "$REPO/charts" -czf "$SERVE/web-1.0.0.tgz" web
cat >"$SERVE/index.yaml" <<EOF
apiVersion: v1
entries:
  web:
    - apiVersion: v2
      name: web
      version: 1.0.0
      digest: $(sha256sum "$SERVE/web-1.0.0.tgz" | cut -d' ' -f1)
      created: "2026-01-01T00:00:00Z"
      urls: [http://127.0.0.1:$PORT/web-1.0.0.tgz]
generated: "2026-01-01T00:00:00Z"
EOF
python3 -m http.server --bind 127.0.0.1 --directory "$SERVE" "$PORT" >/dev/null 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 50); do python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/index.yaml')" 2>/dev/null && break; sleep 0.1; done
"$RG" flux build --all --allow-network --chart-cache "$BENCH/cache" --repo-root "$REPO" "$REPO/clusters/bench" >/dev/null 2>"$BENCH/warm.err" || [ $? -eq 1 ] || die "warming failed: $(tail -5 "$BENCH/warm.err")"
kill $SERVER 2>/dev/null || true

cd "$REPO"
git init -q && git add -A && git -c user.name=bench -c user.email=bench@example.com commit -qm base
sed -i -E 's/port: [0-9]+\}/port: 8181}/' apps/team-1/app-1/app/httproute.yaml
git diff --quiet && die "the one-app edit changed nothing"
git -c user.name=bench -c user.email=bench@example.com commit -qam "one app"
full=("$RG" flux diff --chart-cache "$BENCH/cache" --base HEAD~1 --head HEAD clusters/bench)
aff=("$RG" flux diff --chart-cache "$BENCH/cache" --changed-from HEAD~1 --head HEAD clusters/bench)
"${full[@]}" >"$BENCH/full.txt" 2>"$BENCH/full.err" || [ $? -eq 1 ] || die "full: $(tail -3 "$BENCH/full.err")"
"${aff[@]}" >"$BENCH/aff.txt" 2>"$BENCH/aff.err" || [ $? -eq 1 ] || die "affected: $(tail -3 "$BENCH/aff.err")"
strip() { grep -v '^Kustomizations and HelmReleases: ' "$1"; }
cmp -s <(strip "$BENCH/full.txt") <(strip "$BENCH/aff.txt") || die "the reviews differ: diff $BENCH/full.txt $BENCH/aff.txt"
grep -h '^Kustomizations and HelmReleases: ' "$BENCH/full.txt" "$BENCH/aff.txt" >&2
echo "bench-flux-affected: load $(cut -d' ' -f1 /proc/loadavg)" >&2
farm-bench -n "$RUNS" --timeout 600 --vs "sh -c 'exec ${full[*]} >/dev/null 2>&1'" -- sh -c "exec ${aff[*]} >/dev/null 2>&1"
