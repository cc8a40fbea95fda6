#!/usr/bin/env bash
# Points the docs, the sidecar manifests and the CI examples at another
# routeguard release (docs/releasing.md): every reference that
# release/ci's TestOneReleaseVersion checks.
#
#   scripts/set-version.sh v0.2.0
set -euo pipefail
new="${1:-}"
if [[ ! "$new" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
	echo "usage: scripts/set-version.sh vX.Y.Z (a release, no pre-release suffix)" >&2
	exit 2
fi
cd "$(dirname "$0")/.."
old="$(sed -n 's|.*ghcr\.io/routeguard/routeguard-cmp:\(v[0-9][0-9.]*\).*|\1|p' cmp/repo-server-sidecar.yaml | head -n 1)"
if [ -z "$old" ]; then
	echo "set-version: cmp/repo-server-sidecar.yaml names no routeguard-cmp version" >&2
	exit 1
fi
files=(README.md docs/*.md cmp/*.yaml examples/flux/ci/*.yml templates/*.yml)
old_re="${old//./\\.}"
sed -i -e "s/${old_re}\\([^0-9]\\|\$\\)/${new}\\1/g" \
	-e "s/routeguard_${old_re#v}_/routeguard_${new#v}_/g" "${files[@]}"
echo "set-version: $old -> $new in ${#files[@]} files; check with: cd release && go test ./ci -run TestOneReleaseVersion"
