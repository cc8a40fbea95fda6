#!/usr/bin/env bash
# bench-flux.sh: `routeguard flux build --all` on the bundled Flux example
# cluster and on a synthetic cluster whose one Kustomization builds a
# 10,000-object tree (internal/synth via routeguard-synth, no kustomization.yaml,
# so Flux's generator scans it) with postBuild substitution on every object.
# Prints a Markdown table (also written to .bench/flux.md). See docs/flux.md.
#
#   scripts/bench-flux.sh                 # 10,000 objects, 3 runs each
#   RUNS=5 OBJECTS=20000 scripts/bench-flux.sh
#   ONE_KUSTOMIZATION=1 scripts/bench-flux.sh   # add the single 10,000-object
#                                                 # Kustomization (kustomize's
#                                                 # build is quadratic in it)
#
# Needs: go; GNU time for peak RSS (apt-get install -y time), else RSS is "-".
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
BENCH=${BENCH_DIR:-$ROOT/.bench}/flux
RUNS=${RUNS:-3}
OBJECTS=${OBJECTS:-10000}
export GOFLAGS=${GOFLAGS:--buildvcs=false}
# Static builds, as shipped (see the Makefile).
export CGO_ENABLED=${CGO_ENABLED:-0}
mkdir -p "$BENCH/bin"

echo "bench-flux: building routeguard and routeguard-synth" >&2
go build -o "$BENCH/bin/routeguard" ./cmd/routeguard
go build -o "$BENCH/bin/routeguard-synth" ./cmd/routeguard-synth
RG=$BENCH/bin/routeguard

# The synthetic repository: apps/synth from routeguard-synth, and a cluster
# directory with the GitRepository, the Kustomization and its ConfigMap.
REPO=$BENCH/repo-$OBJECTS
if [ ! -d "$REPO/apps/synth" ]; then
  rm -rf "$REPO"
  mkdir -p "$REPO/apps" "$REPO/clusters/bench"
  "$BENCH/bin/routeguard-synth" -objects "$OBJECTS" -workloads -dangling 0 -out "$REPO/apps/synth" >/dev/null
  cat >"$REPO/clusters/bench/flux.yaml" <<'YAML'
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: bench
  namespace: flux-system
spec:
  interval: 1m
  url: https://git.example.com/bench.git
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: synth
  namespace: flux-system
spec:
  interval: 10m
  sourceRef:
    kind: GitRepository
    name: bench
  path: ./apps/synth
  prune: true
  commonMetadata:
    labels:
      bench: flux
  postBuild:
    substitute:
      environment: bench
    substituteFrom:
      - kind: ConfigMap
        name: cluster-vars
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cluster-vars
  namespace: flux-system
data:
  cluster_name: bench-1
YAML
fi

# The same objects as Flux repositories usually hold them: one directory and
# one Kustomization per namespace (clusters/split).
if [ ! -d "$REPO/clusters/split" ]; then
  mkdir -p "$REPO/clusters/split" "$REPO/apps/split/shared"
  cp "$REPO/apps/synth/ingressclass.yaml" "$REPO/apps/split/shared/"
  for f in "$REPO"/apps/synth/team-*.yaml; do
    ns=$(basename "$f" | cut -d- -f1-2)
    mkdir -p "$REPO/apps/split/$ns"
    cp "$f" "$REPO/apps/split/$ns/"
  done
  for d in "$REPO"/apps/split/*/; do
    name=$(basename "$d")
    cat >>"$REPO/clusters/split/flux.yaml" <<YAML
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: $name
  namespace: flux-system
spec:
  interval: 10m
  sourceRef:
    kind: GitRepository
    name: bench
  path: ./apps/split/$name
  prune: true
  postBuild:
    substitute:
      environment: bench
YAML
  done
fi
KS_SPLIT=$(grep -c '^kind: Kustomization' "$REPO/clusters/split/flux.yaml")

# measure LABEL ARGS...: median wall seconds and max peak RSS over RUNS runs.
measure() {
  local label=$1; shift
  local walls=() cpus=() rss="-" code=0
  for _ in $(seq "$RUNS"); do
    local start end
    start=$(date +%s.%N)
    if [ -x /usr/bin/time ]; then
      /usr/bin/time -f '%M %U %S' -o "$BENCH/time.out" "$RG" "$@" >"$BENCH/out.yaml" 2>"$BENCH/err.txt" || code=$?
      local kb u sy; read -r kb u sy < <(tail -n1 "$BENCH/time.out")
      cpus+=("$(echo "$u + $sy" | bc -l)")
      if [ "$rss" = "-" ] || [ "$kb" -gt "$rss" ]; then rss=$kb; fi
    else
      "$RG" "$@" >"$BENCH/out.yaml" 2>"$BENCH/err.txt" || code=$?
    fi
    end=$(date +%s.%N)
    walls+=("$(echo "$end - $start" | bc -l)")
  done
  local median; median=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  local cpu="-"
  if [ ${#cpus[@]} -gt 0 ]; then
    cpu=$(printf '%s\n' "${cpus[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.2f s", a[int((NR+1)/2)]}')
  fi
  local objs; objs=$(grep -c '^kind:' "$BENCH/out.yaml" || true)
  [ "$rss" != "-" ] && rss="$((rss / 1024)) MiB"
  printf '| %s | %s | %.2f s | %s | %s | %s |\n' "$label" "$objs" "$median" "$cpu" "$rss" "$code"
}

{
  echo "routeguard flux build, median of $RUNS runs, $(nproc) cores, $(go env GOVERSION), load average $(cut -d' ' -f1 /proc/loadavg) at start"
  echo
  echo "| input | objects out | wall (median) | CPU user+sys (median) | peak RSS | exit |"
  echo "|---|---|---|---|---|---|"
  measure "examples/flux/clusters/prod (3 Kustomizations, 1 HelmRelease), with analysis" flux build --all examples/flux/clusters/prod
  measure "examples, build only (--analyze=false)" flux build --all --analyze=false examples/flux/clusters/prod
  measure "synthetic $OBJECTS objects, $KS_SPLIT Kustomizations (one per namespace), with analysis" flux build --all --repo-root "$REPO" "$REPO/clusters/split"
  measure "synthetic $OBJECTS objects, $KS_SPLIT Kustomizations, build only (--analyze=false)" flux build --all --analyze=false --repo-root "$REPO" "$REPO/clusters/split"
  if [ "${ONE_KUSTOMIZATION:-0}" = 1 ]; then
    measure "synthetic $OBJECTS objects, one Kustomization, build only (--analyze=false)" flux build --all --analyze=false --repo-root "$REPO" "$REPO/clusters/bench"
  fi
} | tee "$BENCH/../flux.md"
