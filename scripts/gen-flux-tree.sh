#!/usr/bin/env bash
# gen-flux-tree.sh OUT [APPS] [RELEASES] [CHART_URL]: writes a Flux repository
# of the shape `flux bootstrap` plus the app-per-directory convention
# produce (issue 14), for benchmarks:
#
#   clusters/bench/            GitRepository + Kustomization flux-system, cluster-apps
#                              (./apps) and infra (./infra), cluster-settings ConfigMap,
#                              a cluster-secrets Secret only the cluster has
#                              (ExternalSecret), a HelmRepository `charts`
#   infra/                     the shared Gateway
#   apps/team-N/app-I/ks.yaml  one Kustomization per app: targetNamespace, dependsOn
#                              the previous app of its team, components on every third,
#                              postBuild substitute + substituteFrom
#   apps/team-N/app-I/app/     kustomization.yaml, HTTPRoute, a configMapGenerator
#                              input that is not a Kubernetes object, and either a
#                              HelmRelease (the first RELEASES apps: chart in Git for
#                              even I, from the HelmRepository for odd I) or a
#                              Deployment + Service
#   charts/web/                the chart in Git (also packaged by the caller for the
#                              HelmRepository at CHART_URL)
#
# APPS defaults to 150, RELEASES to 100, CHART_URL to http://127.0.0.1:8879.
# Deterministic: the same arguments write the same bytes.
set -euo pipefail

OUT=${1:?usage: gen-flux-tree.sh OUT [APPS] [RELEASES] [CHART_URL]}
APPS=${2:-150}
RELEASES=${3:-100}
CHART_URL=${4:-http://127.0.0.1:8879}
TEAMS=10

rm -rf "$OUT"
mkdir -p "$OUT/clusters/bench/flux-system" "$OUT/infra" "$OUT/apps" "$OUT/charts/web/templates" "$OUT/components/common"

cat >"$OUT/clusters/bench/flux-system/gotk-sync.yaml" <<'EOF'
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1m, url: "ssh://git@example.com/bench/fleet.git", ref: {branch: main}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 10m, path: ./clusters/bench, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
EOF
echo "resources: [gotk-sync.yaml]" >"$OUT/clusters/bench/flux-system/kustomization.yaml"
cat >"$OUT/clusters/bench/cluster.yaml" <<EOF
apiVersion: v1
kind: ConfigMap
metadata: {name: cluster-settings, namespace: flux-system}
data: {DOMAIN: bench.example.com, CLUSTER: bench}
---
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata: {name: cluster-secrets, namespace: flux-system}
spec: {secretStoreRef: {kind: ClusterSecretStore, name: vault}, target: {name: cluster-secrets}}
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: {name: charts, namespace: flux-system}
spec: {interval: 1h, url: "$CHART_URL"}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: infra, namespace: flux-system}
spec: {interval: 1h, path: ./infra, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: cluster-apps, namespace: flux-system}
spec:
  interval: 1h
  path: ./apps
  prune: true
  dependsOn: [{name: infra}]
  sourceRef: {kind: GitRepository, name: flux-system}
EOF
cat >"$OUT/infra/gateway.yaml" <<'EOF'
apiVersion: v1
kind: Namespace
metadata: {name: network}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: external, namespace: network}
spec:
  gatewayClassName: cilium
  listeners:
    - {name: https, protocol: HTTPS, port: 443, hostname: "*.bench.example.com", allowedRoutes: {namespaces: {from: All}}, tls: {certificateRefs: [{name: wildcard-tls}]}}
---
apiVersion: v1
kind: Secret
metadata: {name: wildcard-tls, namespace: network}
type: kubernetes.io/tls
data: {tls.crt: "", tls.key: ""}
EOF
cat >"$OUT/components/common/kustomization.yaml" <<'EOF'
apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
labels: [{pairs: {bench.example.com/component: common}}]
EOF

cat >"$OUT/charts/web/Chart.yaml" <<'EOF'
apiVersion: v2
name: web
version: 1.0.0
EOF
cat >"$OUT/charts/web/values.yaml" <<'EOF'
replicas: 1
port: 8080
EOF
cat >"$OUT/charts/web/templates/workload.yaml" <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata: {name: {{ .Release.Name }}, labels: {app: {{ .Release.Name }}}}
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: {{ .Release.Name }}}}
  template:
    metadata: {labels: {app: {{ .Release.Name }}}}
    spec: {containers: [{name: web, image: "nginx:1.27", ports: [{containerPort: {{ .Values.port }}}]}]}
---
apiVersion: v1
kind: Service
metadata: {name: {{ .Release.Name }}}
spec:
  selector: {app: {{ .Release.Name }}}
  ports: [{name: http, port: 80, targetPort: {{ .Values.port }}}]
EOF

teams=()
for ((t = 0; t < TEAMS; t++)); do
  team=team-$t
  teams+=("$team")
  mkdir -p "$OUT/apps/$team"
  printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n' "$team" >"$OUT/apps/$team/namespace.yaml"
  echo "resources:" >"$OUT/apps/$team/kustomization.yaml"
  echo "  - namespace.yaml" >>"$OUT/apps/$team/kustomization.yaml"
done
{
  echo "resources:"
  for team in "${teams[@]}"; do echo "  - $team"; done
} >"$OUT/apps/kustomization.yaml"

for ((i = 0; i < APPS; i++)); do
  team=team-$((i % TEAMS))
  app=app-$i
  dir=$OUT/apps/$team/$app
  mkdir -p "$dir/app"
  echo "  - $app/ks.yaml" >>"$OUT/apps/$team/kustomization.yaml"
  {
    cat <<EOF
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: $app, namespace: flux-system}
spec:
  interval: 30m
  path: ./apps/$team/$app/app
  prune: true
  targetNamespace: $team
  sourceRef: {kind: GitRepository, name: flux-system}
EOF
    if ((i >= TEAMS)); then echo "  dependsOn: [{name: app-$((i - TEAMS))}]"; fi
    if ((i % 3 == 0)); then echo "  components: [../../../../components/common]"; fi
    cat <<EOF
  postBuild:
    substitute: {APP: $app}
    substituteFrom:
      - {kind: ConfigMap, name: cluster-settings}
      - {kind: Secret, name: cluster-secrets}
EOF
  } >"$dir/ks.yaml"

  resources="httproute.yaml"
  if ((i < RELEASES)); then
    resources="$resources, helmrelease.yaml"
    if ((i % 2 == 0)); then
      chart='{chart: ./charts/web, sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}}'
    else
      chart='{chart: web, version: "1.x", sourceRef: {kind: HelmRepository, name: charts, namespace: flux-system}}'
    fi
    cat >"$dir/app/helmrelease.yaml" <<EOF
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: \${APP}
spec:
  interval: 30m
  chart: {spec: $chart}
  values: {replicas: $((i % 3 + 1)), port: 8080}
EOF
  else
    resources="$resources, workload.yaml"
    cat >"$dir/app/workload.yaml" <<EOF
apiVersion: apps/v1
kind: Deployment
metadata: {name: $app, labels: {app: $app}}
spec:
  selector: {matchLabels: {app: $app}}
  template:
    metadata: {labels: {app: $app}}
    spec: {containers: [{name: web, image: "nginx:1.27", ports: [{containerPort: 8080}]}]}
---
apiVersion: v1
kind: Service
metadata: {name: $app}
spec:
  selector: {app: $app}
  ports: [{name: http, port: 80, targetPort: 8080}]
EOF
  fi
  cat >"$dir/app/httproute.yaml" <<'EOF'
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: ${APP}
spec:
  parentRefs: [{name: external, namespace: network, sectionName: https}]
  hostnames: ["${APP}.${DOMAIN}"]
  rules: [{backendRefs: [{name: "${APP}", port: 80}]}]
EOF
  # A configMapGenerator input: YAML that is not a Kubernetes object.
  printf 'server:\n  name: %s\n  listen: 8080\n' "$app" >"$dir/app/config.yaml"
  cat >"$dir/app/kustomization.yaml" <<EOF
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [$resources]
configMapGenerator:
  - {name: $app-config, files: [config.yaml]}
EOF
done
