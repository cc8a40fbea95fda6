#!/usr/bin/env bash
# build.sh [--check] TOOL: builds the binaries of the e2e tool module e2e/tools/TOOL
# (listed in its `binaries` file: name, package and optional extra -ldflags
# per line) into a cache
# directory keyed by everything that goes into them: the module's go.mod,
# go.sum, its Go files and `binaries`, the Go version and the build
# environment. A warm run rebuilds nothing and prints the directory.
#
# The cache lives beside the Go build cache (ROUTEGUARD_E2E_CACHE overrides
# it), so a fresh clone on the same machine (CI) finds it too. With --check
# it builds nothing and exits 0 when the binaries are cached, 1 when not.
set -euo pipefail
check=false
if [ "${1:-}" = --check ]; then
	check=true
	shift
fi
tool=${1:?usage: build.sh [--check] TOOL}
here=$(cd "$(dirname "$0")" && pwd)
dir=$here/$tool
[ -f "$dir/binaries" ] || { echo "build.sh: $dir/binaries not found" >&2; exit 2; }
export GOWORK=off CGO_ENABLED=0 GOFLAGS=-buildvcs=false
root=${ROUTEGUARD_E2E_CACHE:-$(dirname "$(go env GOCACHE)")/routeguard-e2e}
key=$(
	cd "$dir"
	{
		go version
		echo "CGO_ENABLED=$CGO_ENABLED GOFLAGS=$GOFLAGS GOOS=$(go env GOOS) GOARCH=$(go env GOARCH)"
		find . -name '*.go' -o -name go.mod -o -name go.sum -o -name binaries | LC_ALL=C sort | xargs sha256sum
	} | sha256sum | cut -c1-16
)
out=$root/$tool-$key
if [ -f "$out/.complete" ]; then
	echo "$out"
	exit 0
fi
if $check; then
	exit 1
fi
mkdir -p "$root"
tmp=$(mktemp -d "$root/.$tool-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
grep -v "^#" "$dir/binaries" | while read -r name pkg ldflags; do
	[ -n "$name" ] || continue
	echo "build.sh: building $tool/$name ($pkg)" >&2
	(cd "$dir" && go build -ldflags="-s -w $ldflags" -o "$tmp/$name" "$pkg")
done
touch "$tmp/.complete"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "build.sh: $tool built in $((SECONDS - start))s into $out" >&2
echo "$out"
