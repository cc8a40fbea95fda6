#!/usr/bin/env bash
# bench-analyze.sh: side-by-side of routeguard's analysis and
# `istioctl analyze --use-kube=false -A` (built from the Istio module version
# in go.mod) on synthetic routing repositories of 1,000 and 10,000 objects.
# Prints a Markdown table (also written to .bench/analyze.md).
#
#   scripts/bench-analyze.sh            # sizes 1000 10000, 3 runs each
#   RUNS=5 SIZES="1000 10000 20000" scripts/bench-analyze.sh
#
# Needs: go, GNU time (/usr/bin/time; `apt-get install time`). The first run
# builds istioctl in .bench/istioctl (several minutes, module proxy access).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
BENCH=${BENCH_DIR:-$ROOT/.bench}
RUNS=${RUNS:-3}
SIZES=${SIZES:-"1000 10000"}
SEED=${SEED:-1}
TIME=/usr/bin/time
export GOFLAGS=${GOFLAGS:--buildvcs=false}

die() { echo "bench-analyze: $*" >&2; exit 2; }
[ -x "$TIME" ] || die "GNU time is missing: apt-get update && apt-get install -y time"
mkdir -p "$BENCH/bin"

echo "bench-analyze: building routeguard-synth and routeguard-istio" >&2
go build -o "$BENCH/bin/routeguard-synth" ./cmd/routeguard-synth
go build -o "$BENCH/bin/routeguard-istio" ./internal/analysis/istio/cmd/routeguard-istio

# istioctl from the same Istio module version, in a module of its own (its
# main package needs modules the main module does not carry), resolved with
# Istio's own dependency versions.
ISTIO_VERSION=$(go list -m -f '{{.Version}}' istio.io/istio)
ISTIOCTL=$BENCH/bin/istioctl
if [ ! -x "$ISTIOCTL" ] || [ "$(cat "$BENCH/bin/istioctl.version" 2>/dev/null)" != "$ISTIO_VERSION" ]; then
	echo "bench-analyze: building istioctl from istio.io/istio@$ISTIO_VERSION (takes minutes the first time)" >&2
	mod=$BENCH/istioctl-module
	rm -rf "$mod" && mkdir -p "$mod"
	cat >"$mod/go.mod" <<MOD
module routeguard.local/istioctl

go 1.26.0

require istio.io/istio $ISTIO_VERSION
MOD
	printf '//go:build tools\n\npackage tools\n\nimport _ "istio.io/istio/istioctl/cmd/istioctl"\n' >"$mod/tools.go"
	(cd "$mod" && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 && go build -o "$ISTIOCTL" istio.io/istio/istioctl/cmd/istioctl) ||
		die "building istioctl failed; see the output of: (cd $mod && go build istio.io/istio/istioctl/cmd/istioctl)"
	echo "$ISTIO_VERSION" >"$BENCH/bin/istioctl.version"
fi

RG=$BENCH/bin/routeguard-istio
# routeguard: the analyze pipeline (render the directory, every registered
# analyzer including istio.Analyzers, one line per finding).
rg_cmd() { echo "$RG pipeline $1"; }
ic_cmd() { echo "$ISTIOCTL analyze --use-kube=false -A $1"; }

# measure NAME CMD...: runs CMD $RUNS times; keeps the fastest run's wall
# and CPU time, the highest peak RSS, and the last run's output.
measure() {
	local name=$1; shift
	local best_wall="" best_cpu="" peak=0 i
	for ((i = 0; i < RUNS; i++)); do
		"$TIME" -f "%e %U %S %M" -o "$BENCH/$name.time" "$@" >"$BENCH/$name.out" 2>"$BENCH/$name.err" || true
		read -r wall user sys rss < <(tail -1 "$BENCH/$name.time")
		cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u+s}')
		if [ -z "$best_wall" ] || awk -v a="$wall" -v b="$best_wall" 'BEGIN{exit !(a<b)}'; then best_wall=$wall; fi
		if [ -z "$best_cpu" ] || awk -v a="$cpu" -v b="$best_cpu" 'BEGIN{exit !(a<b)}'; then best_cpu=$cpu; fi
		[ "$rss" -gt "$peak" ] && peak=$rss
	done
	echo "$best_wall $best_cpu $peak"
}

# found OUT ERRPATTERN INJECTED: how many injected objects have an error
# finding in OUT.
found() {
	local out=$1 pat=$2 injected=$3 n=0 ref
	grep -E "$pat" "$out" >"$out.errors" || true
	while IFS= read -r ref; do
		grep -qE "$(printf '%s' "$ref" | sed 's/[.[\*^$/]/\\&/g')[ :)]" "$out.errors" && n=$((n + 1))
	done <"$injected"
	echo "$n"
}

table=$BENCH/analyze.md
{
	echo "| objects | tool | wall s (best of $RUNS) | CPU s | peak RSS MB | findings | errors | injected found |"
	echo "|---:|---|---:|---:|---:|---:|---:|---:|"
} >"$table"
declare -A WALL RSS
for size in $SIZES; do
	repo=$BENCH/repo-$size
	rm -rf "$repo"
	dangling=$((size / 200))
	"$BENCH/bin/routeguard-synth" -objects "$size" -dangling "$dangling" -seed "$SEED" -out "$repo" \
		>"$BENCH/injected-$size.txt" 2>"$BENCH/synth-$size.log"
	objects=$(sed -n 's/.*wrote \([0-9]*\) objects.*/\1/p' "$BENCH/synth-$size.log")
	injected=$(wc -l <"$BENCH/injected-$size.txt")
	echo "bench-analyze: $objects objects, $injected injected dangling references" >&2

	# shellcheck disable=SC2046
	read -r w c m < <(measure "rg-$size" $(rg_cmd "$repo"))
	total=$(grep -c . "$BENCH/rg-$size.out" || true)
	errors=$(grep -c ' error ' "$BENCH/rg-$size.out" || true)
	f=$(found "$BENCH/rg-$size.out" ' error ' "$BENCH/injected-$size.txt")
	WALL[rg-$size]=$w RSS[rg-$size]=$m
	echo "| $objects | routeguard (pipeline + istio.Analyzers) | $w | $c | $((m / 1024)) | $total | $errors | $f / $injected |" >>"$table"

	# shellcheck disable=SC2046
	read -r w c m < <(measure "istioctl-$size" $(ic_cmd "$repo"))
	total=$(grep -cE '^(Error|Warning|Info) \[' "$BENCH/istioctl-$size.out" || true)
	errors=$(grep -c '^Error \[' "$BENCH/istioctl-$size.out" || true)
	f=$(found "$BENCH/istioctl-$size.out" '^Error \[' "$BENCH/injected-$size.txt")
	WALL[ic-$size]=$w RSS[ic-$size]=$m
	echo "| $objects | istioctl analyze --use-kube=false -A | $w | $c | $((m / 1024)) | $total | $errors | $f / $injected |" >>"$table"
done

{
	echo
	echo "Load average during the run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; Istio $ISTIO_VERSION; $(go version | cut -d' ' -f3)."
	set -- $SIZES
	if [ $# -ge 2 ]; then
		small=$1 big=${!#}
		awk -v rgb="${WALL[rg-$big]}" -v rgs="${WALL[rg-$small]}" -v icb="${WALL[ic-$big]}" \
			-v rmb="${RSS[rg-$big]}" -v imb="${RSS[ic-$big]}" -v s="$small" -v b="$big" 'BEGIN{
			printf "routeguard/istioctl wall time at %s: %.2f (goal <= 0.50); peak RSS: %.2f (goal <= 1.00); routeguard %s/%s wall: %.1fx (goal <= 12x)\n",
				b, rgb/icb, rmb/imb, b, s, rgb/rgs }'
	fi
} >>"$table"
cat "$table"
