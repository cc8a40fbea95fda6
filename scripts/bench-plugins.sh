#!/usr/bin/env bash
# bench-plugins.sh: what the plugin boundary buys and costs (docs/plugins.md).
#
#   1. start-up of `routeguard analyze` (wall time, peak RSS; median of RUNS)
#      on an app without Istio objects and on one with them, for
#        - routeguard + routeguard-istio beside it (the shipped layout: Istio
#          out of process, started only for apps with Istio objects), and
#        - routeguard-inproc (cmd/routeguard-inproc:
#          the same CLI with Istio's analyzers linked in and registered);
#   2. one plugin call carrying 10,000 objects (Go benchmarks in
#      internal/pluginhost: the whole round trip with process start, and the
#      Analyze call alone on a running plugin).
#
#   scripts/bench-plugins.sh              # RUNS=10
#   RUNS=20 NO_ISTIO_APP=examples/apps/frontend ISTIO_APP=examples/broken/missing-subset scripts/bench-plugins.sh
#
# Peak RSS is GNU time's %M for routeguard; the routeguard-istio plugin's
# own peak is a separate column (the two run at the same time, so a pod
# needs about their sum). Needs GNU time (apt-get install -y time).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS=${GOFLAGS:--buildvcs=false}
# Static builds, as shipped (see the Makefile).
export CGO_ENABLED=${CGO_ENABLED:-0}
RUNS=${RUNS:-10}
NO_ISTIO_APP=${NO_ISTIO_APP:-examples/apps/routing/gateways}
ISTIO_APP=${ISTIO_APP:-examples/apps/routing/istio}
OUT=${BENCH_DIR:-.bench}/plugins
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench-plugins: GNU time is missing: apt-get update && apt-get install -y time" >&2; exit 2; }

mkdir -p "$OUT/shipped" "$OUT/inproc" "$OUT/bin"
OUT=$(cd "$OUT" && pwd)
echo "bench-plugins: building routeguard, routeguard-istio, routeguard-inproc" >&2
go build -o "$OUT/shipped/routeguard" ./cmd/routeguard
go build -o "$OUT/bin/routeguard-istio" ./cmd/routeguard-istio
go build -o "$OUT/inproc/routeguard-inproc" ./cmd/routeguard-inproc
# GNU time on routeguard reports routeguard's own peak RSS, not the
# plugin's: this stand-in beside routeguard runs the plugin under GNU time
# (plugins get a minimal environment, so the paths are written in).
PLUGIN_RSS=$OUT/plugin.rss
cat >"$OUT/shipped/routeguard-istio" <<WRAP
#!/bin/sh
exec $TIME -f %M -a -o $PLUGIN_RSS $OUT/bin/routeguard-istio "\$@"
WRAP
chmod +x "$OUT/shipped/routeguard-istio"
# Start each binary as an installed one starts: evict the freshly linked
# files from the page cache (see bench-analyze.sh: a file just written is
# mapped in 2 MB pages and shows more RSS than one read from disk).
for f in "$OUT/shipped/routeguard" "$OUT/bin/routeguard-istio" "$OUT/inproc/routeguard-inproc"; do
	sync "$f" 2>/dev/null || true
	dd if="$f" iflag=nocache count=0 status=none 2>/dev/null || true
done

# once BIN APP FIGS: one run of `BIN analyze -o json APP` with a PATH that
# does not hold routeguard-istio (the in-process variant must not find the
# plugin; the shipped one finds it beside itself). Appends "wall_ms
# peak_kib plugin_kib exit" to FIGS. Wall time is taken with date's
# nanoseconds (GNU time's %e has only 10 ms resolution).
once() {
	local bin=$1 app=$2 figs=$3 t0 t1 rc=0 rss plugin=0
	: >"$PLUGIN_RSS"
	t0=$(date +%s%N)
	env -i PATH=/usr/bin:/bin HOME="${HOME:-/tmp}" "$TIME" -f '%M' -o "$OUT/rss" \
		"$bin" analyze -o json "$app" >/dev/null 2>&1 || rc=$?
	t1=$(date +%s%N)
	rss=$(tail -1 "$OUT/rss")
	[ -s "$PLUGIN_RSS" ] && plugin=$(tail -1 "$PLUGIN_RSS")
	echo "$(((t1 - t0) / 1000000)) $rss $plugin $rc" >>"$figs"
}

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# row LABEL APP FIGS: a table row of the medians in FIGS.
row() {
	local ms kib plugin rc prss="-"
	ms=$(cut -d' ' -f1 "$3" | median)
	kib=$(cut -d' ' -f2 "$3" | median)
	plugin=$(cut -d' ' -f3 "$3" | median)
	rc=$(cut -d' ' -f4 "$3" | sort -u | tr '\n' ' ')
	[ "$plugin" != 0 ] && prss=$(printf '%.1f' "$(echo "$plugin/1024" | bc -l)")
	printf '| %s | %s | %.3f | %.1f | %s | %s|\n' "$1" "$2" "$(echo "$ms/1000" | bc -l)" "$(echo "$kib/1024" | bc -l)" "$prss" "$rc"
	echo "$ms $kib" >"$3.median"
}

echo
echo "### start-up of routeguard analyze (median of $RUNS interleaved runs; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| build | app | wall s | peak RSS MiB | plugin peak RSS MiB | exit |"
echo "|---|---|---|---|---|---|"
for app in "$NO_ISTIO_APP" "$ISTIO_APP"; do
	key=$(echo "$app" | tr '/ ' '__')
	rm -f "$OUT/$key.shipped" "$OUT/$key.inproc"
	# Interleave the two builds so that load from elsewhere hits both alike.
	for _ in $(seq "$RUNS"); do
		once "$OUT/shipped/routeguard" "$app" "$OUT/$key.shipped"
		once "$OUT/inproc/routeguard-inproc" "$app" "$OUT/$key.inproc"
	done
	row "plugin boundary (routeguard)" "$app" "$OUT/$key.shipped"
	row "Istio linked in (routeguard-inproc)" "$app" "$OUT/$key.inproc"
done

key=$(echo "$NO_ISTIO_APP" | tr '/ ' '__')
read -r ps pk <"$OUT/$key.shipped.median"
read -r is ik <"$OUT/$key.inproc.median"
echo
awk -v ps="$ps" -v is="$is" -v pk="$pk" -v ik="$ik" 'BEGIN {
	printf "Without Istio objects: %.0f%% less wall time (goal >= 40%%), %.0f%% less peak RSS (goal >= 30%%).\n",
		(is > 0 ? 100 * (1 - ps / is) : 0), (ik > 0 ? 100 * (1 - pk / ik) : 0) }'
echo
echo "### one plugin call with 10,000 HTTPRoutes (team-hosts; goal < 0.3 s round trip)"
echo
go test ./internal/pluginhost/ -run '^$' -bench "Plugin|Encode|Decode" -benchtime ${BENCHTIME:-5x} -benchmem |
	grep -E '^Benchmark' | awk '{printf "%-34s %8.1f ms/op  %s\n", $1, $3/1e6, ($5=="MB/s" ? $4" MB/s" : "")}'
