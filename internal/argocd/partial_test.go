package argocd

import (
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
)

// An Application whose kustomization pulls a Helm chart that is not in the
// repository is partly rendered: its Gateway and routes are checked, and a
// route to the Service the chart would make is RG0001 (cannot check), not
// RG1101; a route to a Service nothing makes stays an error. The app was
// skipped whole before (homelabs that keep cilium or argo-cd as helmCharts
// next to their Gateways).
func TestKustomizeMissingChartPartlyRendered(t *testing.T) {
	httpRoute := func(name, ns, svc string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + ", namespace: " + ns + "}\n" +
			"spec:\n  hostnames: [" + name + ".example.com]\n  parentRefs: [{name: web, namespace: gateway-system}]\n  rules:\n    - backendRefs: [{name: " + svc + ", port: 80}]\n---\n"
	}
	root := writeRepo(t, map[string]string{
		"argocd/infra.yaml": application("infra", "gateway-system", "infra", ""),
		"infra/kustomization.yaml": `resources: [gateway.yaml, routes.yaml]
helmCharts:
- name: argo-cd
  repo: https://argoproj.github.io/argo-helm
  version: 7.0.0
  releaseName: argocd
`,
		"infra/gateway.yaml": platformGateway,
		"infra/routes.yaml": httpRoute("argocd", "gateway-system", "argocd-server") + httpRoute("typo", "team", "nothing-makes-this") +
			"apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: team}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n",
	})
	res := build(t, root, Options{}, "argocd")
	a := app(t, res, "argocd/infra")
	if a.Status() != "partial" || a.Set == nil || len(a.Sources) != 1 || len(a.Sources[0].MissingCharts) != 1 {
		t.Fatalf("status %s, sources %+v, err %v", a.Status(), a.Sources, a.Err)
	}
	byApp := analyzeByApp(t, res)
	var codes []string
	for _, f := range byApp["argocd/infra"] {
		if f.Severity >= analysis.SeverityWarning {
			codes = append(codes, f.Code+" "+f.Object.Name)
		}
	}
	slices.Sort(codes)
	if want := []string{"RG0001 argocd", "RG1101 typo"}; !slices.Equal(codes, want) {
		t.Errorf("findings %v, want %v (all: %+v)", codes, want, byApp)
	}
}

// An Application whose kustomization names a remote base (a Git
// repository) besides its own files is partly rendered offline: its own
// routes are checked, what the base adds is "cannot check" in the
// destination namespace, and a warning names file:line and the kind of
// remote; a remote generator file adds no object (no unrendered scope).
func TestKustomizeRemotePartlyRendered(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"argocd/infra.yaml": application("infra", "gateway-system", "infra", ""),
		"infra/kustomization.yaml": `resources:
  - gateway.yaml
  - https://github.com/kubernetes-sigs/gateway-api//config/crd?ref=v1.2.0
configMapGenerator:
  - name: dashboards
    files: [dash.json=https://grafana.example.com/api/dashboards/1.json]
`,
		"infra/gateway.yaml": platformGateway,
	})
	res := build(t, root, Options{}, "argocd")
	a := app(t, res, "argocd/infra")
	if a.Status() != "partial" || a.Set == nil || len(a.Sources) != 1 || len(a.Sources[0].Remote) != 2 || len(a.Unrendered) != 1 {
		t.Fatalf("status %s, sources %+v, unrendered %+v, err %v", a.Status(), a.Sources, a.Unrendered, a.Err)
	}
	notes := a.LeftOut()
	if len(notes) != 2 || !strings.Contains(notes[0].Text, `infra/kustomization.yaml:3: resources "https://github.com/kubernetes-sigs/gateway-api//config/crd?ref=v1.2.0" is a remote resource (a Git repository)`) ||
		!strings.Contains(notes[1].Text, "configMapGenerator[].files") || !strings.Contains(notes[1].Text, "a remote generator input (an HTTP(S) file)") {
		t.Errorf("notices %+v", notes)
	}
}
