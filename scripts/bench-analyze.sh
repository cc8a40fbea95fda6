#!/usr/bin/env bash
# bench-analyze.sh: side-by-side of `routeguard analyze`,
# `istioctl analyze --use-kube=false -A` (built from the Istio module version
# in go.mod) and kubeconform (built from the Go module proxy) on synthetic
# routing repositories of 1,000 and 10,000 objects (internal/synth), in one
# run. Prints a Markdown table (also written to .bench/analyze.md). See
# docs/analysis-bench.md and docs/validation.md.
#
#   scripts/bench-analyze.sh                       # sizes 1000 10000, 3 runs each
#   RUNS=5 SIZES="1000 10000 20000" scripts/bench-analyze.sh
#
# Rows:
#   routeguard analyze      bin/routeguard with the routeguard-istio plugin
#                           beside it (the shipped layout: Istio out of process)
#   routeguard, no validation  the same binary built with -tags novalidation
#                           (no API server validation: what validation costs)
#   routeguard, in-process  the same analysis with istio.Analyzers linked in
#                           (cmd/routeguard-inproc)
#   istioctl                istioctl analyze --use-kube=false -A DIR
#   kubeconform             kubeconform -strict on the same files, with JSON
#                           schemas of the same Kubernetes and CRD versions
#                           (scripts/kubeconform-schemas: offline)
#
# Then routeguard and kubeconform on the broken apps of the validation
# classes (examples/broken): what each rejects.
#
# Needs: go, jq, GNU time (apt-get install -y jq time). The first run builds
# istioctl in .bench (minutes; needs the Go module proxy).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
BENCH=${BENCH_DIR:-$ROOT/.bench}
RUNS=${RUNS:-3}
SIZES=${SIZES:-"1000 10000"}
SEED=${SEED:-1}
TIME=/usr/bin/time
export GOFLAGS=${GOFLAGS:--buildvcs=false}
# Static builds, as shipped (see the Makefile).
export CGO_ENABLED=${CGO_ENABLED:-0}

die() { echo "bench-analyze: $*" >&2; exit 2; }
[ -x "$TIME" ] || die "GNU time is missing: apt-get update && apt-get install -y time"
command -v jq >/dev/null || die "jq is missing: apt-get update && apt-get install -y jq"
mkdir -p "$BENCH/bin" "$BENCH/rg"

echo "bench-analyze: building routeguard (with and without validation), routeguard-istio, routeguard-inproc, routeguard-synth" >&2
mkdir -p "$BENCH/rgnv"
go build -o "$BENCH/rg/routeguard" ./cmd/routeguard
go build -tags novalidation -o "$BENCH/rgnv/routeguard" ./cmd/routeguard
go build -o "$BENCH/bin/routeguard-istio" ./cmd/routeguard-istio
go build -o "$BENCH/bin/routeguard-inproc" ./cmd/routeguard-inproc
go build -o "$BENCH/bin/routeguard-synth" ./cmd/routeguard-synth
# The plugin is found beside routeguard; this stand-in records the plugin
# process's peak RSS (VmHWM) while it runs: routeguard's own GNU time only
# reports the larger of the two processes, and routeguard kills the plugin
# when done, so the plugin cannot be wrapped in GNU time. Plugins get a
# minimal environment, so every path is written into the script. The
# sampler forks nothing once started (bash builtins; it sleeps in a read
# with a timeout on a FIFO nobody writes): a grep and a sleep every 10 ms
# took ~0.3 s of wall time from routeguard's rows on 2 CPUs.
PLUGIN_RSS=$BENCH/plugin.rss
SLEEP_FIFO=$BENCH/sleep.fifo
rm -f "$SLEEP_FIFO" && mkfifo "$SLEEP_FIFO"
cat >"$BENCH/rg/routeguard-istio" <<WRAP
#!/bin/bash
pid=\$\$
{
	exec 9<>$SLEEP_FIFO
	while [ -e /proc/\$pid/status ]; do
		while IFS= read -r line; do
			case \$line in VmHWM:*) echo "\$line" >>$PLUGIN_RSS ;; esac
		done </proc/\$pid/status
		read -r -t 0.01 -u 9 _
	done
} </dev/null >/dev/null 2>&1 &
exec $BENCH/bin/routeguard-istio "\$@"
WRAP
chmod +x "$BENCH/rg/routeguard-istio"
cp "$BENCH/rg/routeguard-istio" "$BENCH/rgnv/routeguard-istio"

# kubeconform from the Go module proxy (a pinned release), and JSON schemas
# for it from the same Kubernetes OpenAPI and CRDs routeguard validates
# against, so that it runs offline on the same objects.
KUBECONFORM_VERSION=${KUBECONFORM_VERSION:-v0.8.0}
KUBECONFORM=$BENCH/bin/kubeconform
if [ ! -x "$KUBECONFORM" ] || [ "$(cat "$BENCH/bin/kubeconform.version" 2>/dev/null)" != "$KUBECONFORM_VERSION" ]; then
	echo "bench-analyze: building kubeconform $KUBECONFORM_VERSION" >&2
	(cd "$BENCH" && GOFLAGS= GOBIN="$BENCH/bin" go install "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION") ||
		die "building kubeconform failed"
	echo "$KUBECONFORM_VERSION" >"$BENCH/bin/kubeconform.version"
fi
KCSCHEMAS=$BENCH/kubeconform-schemas
rm -rf "$KCSCHEMAS"
go run ./scripts/kubeconform-schemas -out "$KCSCHEMAS" >&2
export KUBECONFORM KCSCHEMAS

# istioctl from the same Istio module version, in a module of its own (its
# main package needs modules the main module does not carry), resolved with
# Istio's own dependency versions, and built the way Istio releases it
# (common/scripts/gobuild.sh: CGO_ENABLED=0), like routeguard above.
ISTIO_VERSION=$(go list -m -f '{{.Version}}' istio.io/istio)
ISTIOCTL=$BENCH/bin/istioctl
ISTIOCTL_BUILD="$ISTIO_VERSION CGO_ENABLED=$CGO_ENABLED"
if [ ! -x "$ISTIOCTL" ] || [ "$(cat "$BENCH/bin/istioctl.version" 2>/dev/null)" != "$ISTIOCTL_BUILD" ]; then
	echo "bench-analyze: building istioctl from istio.io/istio@$ISTIO_VERSION (minutes the first time)" >&2
	mod=$BENCH/istioctl-module
	rm -rf "$mod" && mkdir -p "$mod"
	printf 'module routeguard.local/istioctl\n\ngo 1.26.0\n\nrequire istio.io/istio %s\n' "$ISTIO_VERSION" >"$mod/go.mod"
	printf '//go:build tools\n\npackage tools\n\nimport _ "istio.io/istio/istioctl/cmd/istioctl"\n' >"$mod/tools.go"
	(cd "$mod" && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 && go build -o "$ISTIOCTL" istio.io/istio/istioctl/cmd/istioctl) ||
		die "building istioctl failed; see: (cd $mod && go build istio.io/istio/istioctl/cmd/istioctl)"
	echo "$ISTIOCTL_BUILD" >"$BENCH/bin/istioctl.version"
fi

export BENCH ISTIOCTL

# Start every tool as an installed binary starts: a file the linker has just
# written sits in the page cache in large folios, which the kernel maps in
# 2 MB pages, so a freshly built executable shows 5-15 MB more RSS than the
# same file read back from disk. Evicting the executables' clean pages
# (posix_fadvise DONTNEED through GNU dd; no root needed) puts all tools
# on the same footing.
evict() {
	local f
	for f in "$@"; do
		sync "$f" 2>/dev/null || true
		dd if="$f" iflag=nocache count=0 status=none 2>/dev/null || true
	done
}
evict "$BENCH/rg/routeguard" "$BENCH/rgnv/routeguard" "$BENCH/bin/routeguard-istio" "$BENCH/bin/routeguard-inproc" "$ISTIOCTL" "$KUBECONFORM"

# Each tool: a command, and a filter turning its output into one
# "Kind ns/name" line per error finding (errors), plus the findings count.
run_rg() { "$BENCH/rg/routeguard" analyze -o json "$1"; }
run_rgnv() { "$BENCH/rgnv/routeguard" analyze -o json "$1"; }
run_kubeconform() { "$KUBECONFORM" -strict -summary -output json -schema-location "$KCSCHEMAS/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$1"; }
run_inproc() { "$BENCH/bin/routeguard-inproc" pipeline "$1"; }
run_istioctl() { "$ISTIOCTL" analyze --use-kube=false -A "$1"; }
count_rg() { jq '.findings | length' "$1"; }
count_rgnv() { count_rg "$1"; }
errors_rgnv() { errors_rg "$1"; }
count_kubeconform() { jq '.resources | length' "$1"; }
errors_kubeconform() { jq -r '.resources[] | select(.status == "statusInvalid" or .status == "statusError") | "\(.kind) \(.name)"' "$1"; }
errors_rg() { jq -r '.findings[] | select(.severity == "error") | "\(.object.kind) \(.object.namespace)/\(.object.name)"' "$1"; }
count_inproc() { grep -c . "$1" || true; }
errors_inproc() { awk '$3 == "error" { sub(/:$/, "", $5); print $4, $5 }' "$1"; }
count_istioctl() { grep -cE '^(Error|Warning|Info) \[' "$1" || true; }
errors_istioctl() { sed -n 's/^Error \[IST[0-9]*\] (\([^ ]*\) \([^ ]*\) .*/\1 \2/p' "$1"; }

# measure TOOL DIR: runs the tool $RUNS times; prints the best wall and CPU
# time, the highest peak RSS (MB) and, for routeguard, the plugin's.
measure() {
	local tool=$1 dir=$2 best_wall="" best_cpu="" peak=0 plugin=0 i
	for ((i = 0; i < RUNS; i++)); do
		: >"$PLUGIN_RSS"
		"$TIME" -f "%e %U %S %M" -o "$BENCH/$tool.time" bash -c "$(declare -f "run_$tool"); run_$tool \"\$1\"" _ "$dir" \
			>"$BENCH/$tool.out" 2>"$BENCH/$tool.err" || true
		read -r wall user sys rss < <(tail -1 "$BENCH/$tool.time")
		cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u+s}')
		if [ -z "$best_wall" ] || awk -v a="$wall" -v b="$best_wall" 'BEGIN{exit !(a<b)}'; then best_wall=$wall; fi
		if [ -z "$best_cpu" ] || awk -v a="$cpu" -v b="$best_cpu" 'BEGIN{exit !(a<b)}'; then best_cpu=$cpu; fi
		[ "$rss" -gt "$peak" ] && peak=$rss
		p=$(awk '{print $2}' "$PLUGIN_RSS" | sort -n | tail -1)
		[ -n "$p" ] && [ "$p" -gt "$plugin" ] && plugin=$p
	done
	echo "$best_wall $best_cpu $((peak / 1024)) $((plugin / 1024))"
}

table=$BENCH/analyze.md
{
	echo "| objects | tool | wall s (best of $RUNS) | CPU s | peak RSS MB | findings | errors | injected refs found |"
	echo "|---:|---|---:|---:|---:|---:|---:|---:|"
} >"$table"
declare -A WALL RSS
for size in $SIZES; do
	repo=$BENCH/repo-$size
	rm -rf "$repo"
	"$BENCH/bin/routeguard-synth" -objects "$size" -dangling $((size / 200)) -seed "$SEED" -out "$repo" \
		>"$BENCH/injected-$size.txt" 2>"$BENCH/synth-$size.log"
	objects=$(sed -n 's/.*wrote \([0-9]*\) objects.*/\1/p' "$BENCH/synth-$size.log")
	injected=$(grep -c . "$BENCH/injected-$size.txt")
	echo "bench-analyze: $objects objects, $injected injected dangling references" >&2
	for tool in rg rgnv inproc istioctl kubeconform; do
		read -r w c m p < <(measure "$tool" "$repo")
		total=$("count_$tool" "$BENCH/$tool.out")
		"errors_$tool" "$BENCH/$tool.out" | sort -u >"$BENCH/$tool-$size.errors"
		errors=$("errors_$tool" "$BENCH/$tool.out" | grep -c . || true)
		found=$(grep -cFxf "$BENCH/$tool-$size.errors" "$BENCH/injected-$size.txt" || true)
		case $tool in
		rg) name="routeguard analyze (+ routeguard-istio plugin)"; mem="$m (plugin $p)" ;;
		rgnv) name="routeguard analyze, no validation (+ plugin)"; mem="$m (plugin $p)" ;;
		kubeconform) name="kubeconform -strict (schemas only, no CEL)"; mem=$m ;;
		inproc) name="routeguard, Istio in-process"; mem=$m ;;
		istioctl) name="istioctl analyze --use-kube=false -A"; mem=$m ;;
		esac
		WALL[$tool-$size]=$w RSS[$tool-$size]=$m
		echo "| $objects | $name | $w | $c | $mem | $total | $errors | $found / $injected |" >>"$table"
	done
done

{
	echo
	echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; istio.io/istio $ISTIO_VERSION; $(go version | cut -d' ' -f3)."
	for size in $SIZES; do
		awk -v s="$size" -v w="${WALL[rg-$size]}" -v n="${WALL[rgnv-$size]}" -v k="${WALL[kubeconform-$size]}" -v m="${RSS[rg-$size]}" -v mn="${RSS[rgnv-$size]}" 'BEGIN{
			printf "validation at %s objects: wall with / without = %.2f (goal <= 1.30), peak RSS %d / %d MB; kubeconform wall %.2f s\n", s, w/n, m, mn, k }'
	done
	set -- $SIZES
	if [ $# -ge 2 ]; then
		small=$1
		big=${!#}
		for tool in rg inproc; do
			awk -v t="$tool" -v rgb="${WALL[$tool-$big]}" -v rgs="${WALL[$tool-$small]}" -v icb="${WALL[istioctl-$big]}" \
				-v rmb="${RSS[$tool-$big]}" -v imb="${RSS[istioctl-$big]}" -v s="$small" -v b="$big" 'BEGIN{
				printf "%s: wall time / istioctl at %s = %.2f (goal <= 0.50); peak RSS / istioctl = %.2f (goal <= 1.00); wall %s / %s = %.1fx (goal <= 12x)\n",
					t == "rg" ? "routeguard analyze" : "in-process", b, rgb/icb, rmb/imb, b, s, rgb/rgs }'
		done
	fi
} >>"$table"

# What each validator rejects in the broken apps of the validation classes.
{
	echo
	echo "| broken app | routeguard (RG5xxx errors) | kubeconform -strict |"
	echo "|---|---|---|"
	for app in route-schema route-rules builtin-objects api-version; do
		# routeguard and kubeconform exit 1 on what they reject (pipefail).
		rg=$("$BENCH/rg/routeguard" analyze -o json "examples/broken/$app" 2>/dev/null |
			jq -r '[.findings[] | select(.severity == "error" and (.code | startswith("RG5"))) | .code] | group_by(.) | map("\(.[0]) x\(length)") | join(", ")' || true)
		kc=$(run_kubeconform "examples/broken/$app" 2>/dev/null | jq -r '[.resources[] | "\(.kind): \(.status | sub("status"; ""))"] | join(", ")' || true)
		echo "| $app | ${rg:-none} | ${kc:-all valid} |"
	done
} >>"$table"
cat "$table"
