# shard-timing.sh, sourced by bench-shard.sh and bench-flux-shard.sh (not a
# benchmark of its own). bench_setup makes the run's directory WORK (removed
# on exit) and the binary RG (RG=bin/routeguard: one already built, else
# built into WORK), from the repository's top. time_shards times, RUNS
# times in turn, the unsharded review (the command in the array full, with
# -o json) and each of its four shards (paired: full, shard 1, full, shard 2, ...), then the
# merge of the shard files, with GNU time, and prints each shard's wall and
# CPU over those of the full review of its pair. Needs WORK, RUNS, RG, full.

bench_setup() {
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
  if [ -z "${RG:-}" ]; then
    go build -o "$WORK/routeguard" ./cmd/routeguard
    RG=$WORK/routeguard
  fi
  RG=$(realpath "$RG")
}

timed() { # label command...: one run, "label wall cpu peakKiB"
  local label=$1; shift
  /usr/bin/time -f "$label %e %U %S %M" -o "$WORK/t" "$@" >/dev/null 2>&1 || true
  tail -1 "$WORK/t" | awk '{printf "%s %s %.2f %s\n", $1, $2, $3+$4, $5}' # (a first line: the exit status)
}

time_shards() {
  for r in $(seq "$RUNS"); do
    for i in 1 2 3 4; do
      timed full "${full[@]}" -o json
      timed "shard-$i" "${full[@]}" --shard "$i/4" --shard-out "$WORK/shard-$i.json"
    done
    timed merge "$RG" report merge -o json "$WORK"/shard-{1,2,3,4}.json
  done | tee "$WORK/times"
  awk '
    $1=="full" {fw=$2; fc=$3; next}
    $1 ~ /^shard/ {printf "%s: wall %.1f s (%.0f%% of the full review, %.1f s), CPU %.1f s (%.0f%% of %.1f s), peak %d MiB\n", $1, $2, 100*$2/fw, fw, $3, 100*$3/fc, fc, $4/1024}
    $1=="merge" {printf "merge: wall %.1f s, CPU %.1f s, peak %d MiB\n", $2, $3, $4/1024}
  ' "$WORK/times"
}
