#!/usr/bin/env bash
# bench-diff.sh: `routeguard diff` of two revisions of a generated
# repository of N applications (plain YAML: a Gateway in platform/, per app
# an HTTPRoute with a 90/10 split, two Services and a Deployment) where one
# app's weights changed, side by side with rendering and analyzing both
# revisions in full with `routeguard analyze` (base exported with git
# archive, head the checkout). Prints a Markdown table.
#
#   scripts/bench-diff.sh               # N=1000, 3 runs
#   N=200 RUNS=1 scripts/bench-diff.sh
#   CHANGE=all scripts/bench-diff.sh   # every app's Deployment image changed too
# The diff runs are measured with --diff=routing, then --diff=manifests
# and --diff=both (the manifest diff of the same builds).
#   KIND=kustomize scripts/bench-diff.sh  # Kustomize apps over one shared
#                                         # base (Services, Deployment); each
#                                         # app adds its HTTPRoute
#
# Every KIND=kustomize app reads the shared base, so the trace of each
# render (docs/diff.md) must follow it to decide that only the changed app
# is affected.
#
# Needs: go, git, GNU time (apt-get install -y time).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
N=${N:-1000}
RUNS=${RUNS:-3}
TIME=/usr/bin/time
export GOFLAGS=${GOFLAGS:--buildvcs=false} CGO_ENABLED=${CGO_ENABLED:-0}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

go build -o "$WORK/routeguard" ./cmd/routeguard
RG=$WORK/routeguard
REPO=$WORK/repo
mkdir -p "$REPO/platform" "$REPO/apps"
cat > "$REPO/platform/gateway.yaml" <<'YAML'
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: public, namespace: edge}
spec:
  gatewayClassName: envoy
  listeners: [{name: https, protocol: HTTPS, port: 443, hostname: "*.example.com", allowedRoutes: {namespaces: {from: All}}, tls: {certificateRefs: [{name: wildcard}]}}]
YAML
KIND=${KIND:-plain}
if [ "$KIND" = kustomize ]; then
mkdir -p "$REPO/bases/web"
echo 'resources: [services.yaml, deployment.yaml]' > "$REPO/bases/web/kustomization.yaml"
cat > "$REPO/bases/web/services.yaml" <<'YAML'
apiVersion: v1
kind: Service
metadata: {name: web-blue}
spec: {selector: {app: web, slot: blue}, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: web-green}
spec: {selector: {app: web, slot: green}, ports: [{port: 80}]}
YAML
cat > "$REPO/bases/web/deployment.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: "nginx:1.27"}]}
YAML
for i in $(seq -w 1 "$N"); do
  d=$REPO/apps/app$i
  mkdir -p "$d"
  printf 'namespace: app%s\nresources: [../../bases/web, app.yaml]\n' "$i" > "$d/kustomization.yaml"
  cat > "$d/app.yaml" <<YAML
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web}
spec:
  parentRefs: [{name: public, namespace: edge}]
  hostnames: [app$i.example.com]
  rules:
  - backendRefs:
    - {name: web-blue, port: 80, weight: 90}
    - {name: web-green, port: 80, weight: 10}
YAML
done
else
for i in $(seq -w 1 "$N"); do
  d=$REPO/apps/app$i
  mkdir -p "$d"
  cat > "$d/app.yaml" <<YAML
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: app$i, namespace: app$i}
spec:
  parentRefs: [{name: public, namespace: edge}]
  hostnames: [app$i.example.com]
  rules:
  - backendRefs:
    - {name: app$i-blue, port: 80, weight: 90}
    - {name: app$i-green, port: 80, weight: 10}
---
apiVersion: v1
kind: Service
metadata: {name: app$i-blue, namespace: app$i}
spec: {selector: {app: app$i, slot: blue}, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: app$i-green, namespace: app$i}
spec: {selector: {app: app$i, slot: green}, ports: [{port: 80}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app$i, namespace: app$i}
spec:
  replicas: 2
  selector: {matchLabels: {app: app$i}}
  template:
    metadata: {labels: {app: app$i}}
    spec: {containers: [{name: app, image: "nginx:1.27"}]}
YAML
done
fi
git() { command git -C "$REPO" -c user.name=bench -c user.email=bench@example.com -c commit.gpgsign=false "$@"; }
git init -q
git add -A && git commit -qm base
one=$(printf "%0${#N}d" 1)
sed -i 's/weight: 90/weight: 50/; s/weight: 10/weight: 50/' "$REPO/apps/app$one/app.yaml"
if [ "${CHANGE:-one}" = all ]; then
  for f in "$REPO"/apps/*/app.yaml "$REPO"/bases/web/deployment.yaml; do
    [ -f "$f" ] && sed -i 's/nginx:1.27/nginx:1.28/' "$f"
  done
fi
git commit -qam head
mkdir "$WORK/base" && git archive HEAD~1 | tar -x -C "$WORK/base"

paths=(platform)
for i in $(seq -w 1 "$N"); do paths+=("apps/app$i"); done

measure() { # label, dir, command...
  local label=$1 dir=$2; shift 2
  local best="" line
  for _ in $(seq "$RUNS"); do
    line=$(cd "$dir" && { $TIME -f "%e %U %S %M" "$@" > /dev/null 2> "$WORK/err"; tail -n1 "$WORK/err"; } || tail -n1 "$WORK/err")
    best=$(printf '%s\n%s\n' "$best" "$line" | awk 'NF==4' | sort -n | head -n1)
  done
  read -r wall user sys rss <<< "$best"
  printf '| %s | %.2f s | %.2f s | %d MiB |\n' "$label" "$wall" "$(echo "$user + $sys" | bc)" "$((rss / 1024))"
}

echo "Generated $N $KIND applications + 1 Gateway; one app's weights changed (CHANGE=${CHANGE:-one}). Best of $RUNS, $(nproc) cores."
echo
echo "| run | wall | CPU | peak RSS |"
echo "|---|---|---|---|"
measure "routeguard diff --base HEAD~1 --head HEAD (both exported from git)" "$REPO" "$RG" diff --base HEAD~1 --head HEAD "${paths[@]}"
measure "routeguard diff --base HEAD~1 (head: the work tree)" "$REPO" "$RG" diff --base HEAD~1 "${paths[@]}"
for review in manifests both; do
  measure "routeguard diff --base HEAD~1 --head HEAD --diff=$review -o json" "$REPO" "$RG" diff --base HEAD~1 --head HEAD --diff=$review -o json "${paths[@]}"
done
measure "routeguard analyze, base revision in full" "$WORK/base" "$RG" analyze --repo-root . "${paths[@]}"
measure "routeguard analyze, head revision in full" "$REPO" "$RG" analyze --repo-root . "${paths[@]}"
echo
(cd "$REPO" && "$RG" diff --base HEAD~1 --head HEAD "${paths[@]}" | tail -n 3) || true
