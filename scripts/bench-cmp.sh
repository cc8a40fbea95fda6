#!/usr/bin/env bash
# bench-cmp.sh: GenerateManifest latency through Argo CD's own
# argocd-cmp-server (built from github.com/argoproj/argo-cd/v2 in
# compat/argocd), driven by the repo-server's GenerateManifests: routeguard as
# shipped (render + analysis, Istio's analyzers out of process) beside the
# same binary rendering only (`routeguard render .`) and beside routeguard without the Istio
# plugin, for example apps and a 1,000-object synthetic app. Prints a
# Markdown table. Figures from a loaded machine are noisy: compare columns of
# one run, not runs.
#
#   scripts/bench-cmp.sh [BIN_DIR]        (default: bin, built by `make build`)
#   BENCH_CMP_COUNT=5 BENCH_CMP_BENCHTIME=10x scripts/bench-cmp.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=${CGO_ENABLED:-0} # static builds, as shipped (see the Makefile)
bin=${1:-bin}
count=${BENCH_CMP_COUNT:-5}
benchtime=${BENCH_CMP_BENCHTIME:-10x}
if [ ! -x "$bin/routeguard" ]; then
	go build -o "$bin/routeguard" ./cmd/routeguard
	go build -o "$bin/routeguard-istio" ./cmd/routeguard-istio
fi
rg=$(cd "$bin" && pwd)/routeguard
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
(cd compat/argocd && ROUTEGUARD_BIN="$rg" go test -run '^$' -bench '^BenchmarkGenerateManifest$' \
	-benchtime "$benchtime" -count "$count" ./cmp) | tee "$raw" >&2

echo
echo "GenerateManifest through argocd-cmp-server (mean of $count runs x $benchtime; $(nproc) CPUs; routeguard-istio $( [ -x "$(dirname "$rg")/routeguard-istio" ] && echo present || echo absent))"
echo
awk '
/^BenchmarkGenerateManifest\// {
	split($1, p, "/"); app = p[2]; sub(/-[0-9]+$/, "", app)
	for (i = 5; i < NF; i += 2) {
		unit = $(i + 1)
		if (unit ~ /-ms\/op$/) { sub(/-ms\/op$/, "", unit); sum[app, unit] += $i; n[app, unit]++ }
	}
	if (!(app in seen)) { seen[app] = 1; order[++apps] = app }
}
function ms(a, c) { return n[a, c] ? sum[a, c] / n[a, c] : 0 }
END {
	print "| app | render only (ms) | + built-in analyzers (ms) | + Istio plugin = routeguard as shipped (ms) | analysis on top of rendering: built-in / shipped | with the opt-in discover rule (ms) |"
	print "|---|---:|---:|---:|---:|---:|"
	for (i = 1; i <= apps; i++) {
		a = order[i]
		r = ms(a, "routeguard-render"); b = ms(a, "routeguard-builtin"); g = ms(a, "routeguard-v1"); d = ms(a, "routeguard-discovery")
		printf "| %s | %.0f | %.0f | %.0f | %+.0f%% / %+.0f%% | %.0f |\n", a, r, b, g, (b - r) / r * 100, (g - r) / r * 100, d
	}
}' "$raw"
