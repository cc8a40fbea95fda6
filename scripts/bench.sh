#!/usr/bin/env bash
# bench.sh: every benchmark of routeguard, side by side with the alternative
# a user would pick, in one run. Prints figures; BENCHMARKS.md records them.
# Each capability has its own script (scripts/bench-*.sh); this runs them all.
set -uo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS=${GOFLAGS:--buildvcs=false}
# Static builds, as shipped (see the Makefile).
export CGO_ENABLED=${CGO_ENABLED:-0}

echo "== decoding, emitting and rendering 10,000 objects (one core)"
go test ./internal/manifest/ -run '^$' -bench . -benchtime 3x -cpu 1 | grep -E '^Benchmark|objects/s'
go test ./internal/render/ -run '^$' -bench . -benchtime 2x -cpu 1 | grep -E '^Benchmark|objects/s'

echo
echo "== start-up: routeguard version (wall time, peak RSS), 20 runs"
./scripts/startup.sh bin/routeguard version

for s in scripts/bench-*.sh; do
  [ -x "$s" ] || continue
  echo
  echo "== $s"
  "$s" || echo "($s failed with exit $?)"
done
