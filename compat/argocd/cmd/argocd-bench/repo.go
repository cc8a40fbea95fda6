package main

import (
	"fmt"
	"os"
	"path/filepath"
)

const benchRepoURL = "https://git.example.com/platform/bench-gitops.git"

// writeRepo generates the benchmark repository under dir: one
// ApplicationSet whose git directory generator makes an Application per
// apps/* directory; n team apps, a third each a Helm chart, a Kustomize
// overlay and plain manifests (a Deployment, a Service and an HTTPRoute
// into the shared Gateway), and apps/platform with the Gateway.
func writeRepo(dir string, n int) error {
	files := map[string]string{
		"argocd/appset.yaml": `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: apps
  namespace: argocd
spec:
  goTemplate: true
  generators:
    - git:
        repoURL: ` + benchRepoURL + `
        revision: main
        directories:
          - path: apps/*
  template:
    metadata:
      name: '{{ .path.basename }}'
    spec:
      project: default
      source:
        repoURL: ` + benchRepoURL + `
        targetRevision: main
        path: '{{ .path.path }}'
      destination:
        server: https://kubernetes.default.svc
        namespace: '{{ .path.basename }}'
      syncPolicy:
        syncOptions: [CreateNamespace=true]
`,
		"apps/platform/gateway.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: shared
  namespace: platform
spec:
  gatewayClassName: shared
  listeners:
    - name: http
      protocol: HTTP
      port: 80
      hostname: "*.example.com"
      allowedRoutes:
        namespaces:
          from: All
`,
	}
	for i := range n {
		name := fmt.Sprintf("app-%03d", i)
		p := "apps/" + name + "/"
		switch i % 3 {
		case 0:
			files[p+"Chart.yaml"] = "apiVersion: v2\nname: " + name + "\nversion: 1.0.0\n"
			files[p+"values.yaml"] = "replicas: 2\nimage: ghcr.io/example/web:1.0.0\nport: 8080\nhost: " + name + ".example.com\n"
			files[p+"templates/all.yaml"] = workload("{{ .Release.Name }}", "{{ .Values.image }}", "{{ .Values.replicas }}", "{{ .Values.port }}", "{{ .Values.host }}")
		case 1:
			files[p+"kustomization.yaml"] = "resources: [all.yaml]\nlabels:\n  - pairs: {team: " + name + "}\n    includeSelectors: false\nimages:\n  - name: ghcr.io/example/web\n    newTag: 1.2.0\n"
			files[p+"all.yaml"] = workload(name, "ghcr.io/example/web:1.0.0", "2", "8080", name+".example.com")
		default:
			files[p+"all.yaml"] = workload(name, "ghcr.io/example/web:1.0.0", "2", "8080", name+".example.com")
		}
	}
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func workload(name, image, replicas, port, host string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ` + name + `
spec:
  replicas: ` + replicas + `
  selector:
    matchLabels: {app: ` + name + `}
  template:
    metadata:
      labels: {app: ` + name + `}
    spec:
      containers:
        - name: web
          image: ` + image + `
          ports: [{containerPort: ` + port + `}]
---
apiVersion: v1
kind: Service
metadata:
  name: ` + name + `
spec:
  selector: {app: ` + name + `}
  ports: [{port: 80, targetPort: ` + port + `}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: ` + name + `
spec:
  parentRefs: [{name: shared, namespace: platform}]
  hostnames: ["` + host + `"]
  rules:
    - backendRefs: [{name: ` + name + `, port: 80}]
`
}
