#!/usr/bin/env bash
# startup.sh BIN ARGS...: median wall time and peak RSS of a command over 20
# runs (GNU time's %e/%M; falls back to bash's TIMEFORMAT when it is absent).
set -euo pipefail
runs=${RUNS:-20}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
if [ -x /usr/bin/time ]; then
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %M' -a -o "$tmp" "$@" >/dev/null 2>&1 || true
  done
  sort -n "$tmp" | awk -v cmd="$*" '{t[NR]=$1; if ($2>m) m=$2} END {printf "%-40s median %.3f s  peak RSS %.1f MiB  (%d runs)\n", cmd, t[int((NR+1)/2)], m/1024, NR}'
else
  echo "(/usr/bin/time missing: apt-get install -y time for RSS figures)"
  TIMEFORMAT=%R
  for _ in $(seq "$runs"); do { time "$@" >/dev/null 2>&1; } 2>>"$tmp"; done
  sort -n "$tmp" | awk -v cmd="$*" '{t[NR]=$1} END {printf "%-40s median %.3f s  (%d runs)\n", cmd, t[int((NR+1)/2)], NR}'
fi
