#!/usr/bin/env bash
# bench-plugins.sh: what the plugin boundary buys and costs (docs/plugins.md).
#
#   1. start-up of `routeguard analyze` (wall time, peak RSS; median of RUNS)
#      on an app without Istio objects and on one with them, for
#        - routeguard + routeguard-istio beside it (the shipped layout: Istio
#          out of process, started only for apps with Istio objects), and
#        - routeguard-inproc (internal/analysis/istio/cmd/routeguard-inproc:
#          the same CLI with Istio's analyzers linked in and registered);
#   2. one plugin call carrying 10,000 objects (Go benchmarks in
#      internal/plugins: the whole round trip with process start, and the
#      Analyze call alone on a running plugin).
#
#   scripts/bench-plugins.sh              # RUNS=10
#   RUNS=20 NO_ISTIO_APP=examples/apps/frontend ISTIO_APP=examples/broken/missing-subset scripts/bench-plugins.sh
#
# Peak RSS is GNU time's %M: the largest process of the tree (routeguard or,
# for Istio apps, routeguard-istio), not their sum. Needs GNU time
# (apt-get install -y time).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS=${GOFLAGS:--buildvcs=false}
RUNS=${RUNS:-10}
NO_ISTIO_APP=${NO_ISTIO_APP:-examples/apps/routing/gateways}
ISTIO_APP=${ISTIO_APP:-examples/apps/routing/istio}
OUT=${BENCH_DIR:-.bench}/plugins
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench-plugins: GNU time is missing: apt-get update && apt-get install -y time" >&2; exit 2; }

mkdir -p "$OUT/shipped" "$OUT/inproc"
echo "bench-plugins: building routeguard, routeguard-istio, routeguard-inproc" >&2
go build -o "$OUT/shipped/routeguard" ./cmd/routeguard
go build -o "$OUT/shipped/routeguard-istio" ./cmd/routeguard-istio
go build -o "$OUT/inproc/routeguard-inproc" ./internal/analysis/istio/cmd/routeguard-inproc

# measure BIN APP: "median_seconds peak_kib exit_code" over RUNS runs, with
# a PATH that does not hold routeguard-istio (the in-process variant must
# not find the plugin; the shipped one finds it beside itself).
measure() {
	local bin=$1 app=$2 tmp rc
	tmp=$(mktemp)
	rc=0
	for _ in $(seq "$RUNS"); do
		env -i PATH=/usr/bin:/bin HOME="${HOME:-/tmp}" "$TIME" -f '%e %M' -a -o "$tmp" \
			"$bin" analyze -o json "$app" >/dev/null 2>&1 || rc=$?
	done
	median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
	echo "$(cut -d' ' -f1 "$tmp" | median) $(cut -d' ' -f2 "$tmp" | median) $rc"
	rm -f "$tmp"
}

row() { # label app bin
	read -r secs kib rc < <(measure "$3" "$2")
	printf '| %s | %s | %s | %.3f | %.1f | %s |\n' "$1" "$2" "$(basename "$3")" "$secs" "$(echo "$kib/1024" | bc -l)" "$rc"
	echo "$secs $kib" >"$OUT/$(echo "$1-$2" | tr '/ ' '__').fig"
}

echo
echo "### start-up of routeguard analyze (median of $RUNS runs; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| build | app | binary | wall s | peak RSS MiB | exit |"
echo "|---|---|---|---|---|---|"
row "plugin boundary" "$NO_ISTIO_APP" "$OUT/shipped/routeguard"
row "Istio linked in" "$NO_ISTIO_APP" "$OUT/inproc/routeguard-inproc"
row "plugin boundary" "$ISTIO_APP" "$OUT/shipped/routeguard"
row "Istio linked in" "$ISTIO_APP" "$OUT/inproc/routeguard-inproc"

fig() { cat "$OUT/$(echo "$1-$2" | tr '/ ' '__').fig"; }
read -r ps pk < <(fig "plugin boundary" "$NO_ISTIO_APP")
read -r is ik < <(fig "Istio linked in" "$NO_ISTIO_APP")
echo
awk -v ps="$ps" -v is="$is" -v pk="$pk" -v ik="$ik" 'BEGIN {
	printf "Without Istio objects: %.0f%% less wall time (goal >= 40%%), %.0f%% less peak RSS (goal >= 30%%).\n",
		(is > 0 ? 100 * (1 - ps / is) : 0), (ik > 0 ? 100 * (1 - pk / ik) : 0) }'

echo
echo "### one plugin call with 10,000 HTTPRoutes (team-hosts; goal < 0.3 s round trip)"
echo
go test ./internal/plugins/ -run '^$' -bench 'Plugin|Encode|Decode' -benchtime 5x -benchmem |
	grep -E '^Benchmark' | awk '{printf "%-34s %8.1f ms/op  %s\n", $1, $3/1e6, ($5=="MB/s" ? $4" MB/s" : "")}'
