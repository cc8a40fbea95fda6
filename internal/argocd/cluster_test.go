package argocd

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
)

const platformGateway = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: web
  namespace: gateway-system
spec:
  gatewayClassName: shared
  listeners:
    - name: http
      protocol: HTTP
      port: 80
      allowedRoutes:
        namespaces:
          from: All
`

// route is a team's HTTPRoute into gateway ns/name and its Service.
func route(team, gwNS, gw string) string {
	return fmt.Sprintf(`
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: %[1]s
spec:
  parentRefs:
    - name: %[3]s
      namespace: %[2]s
  hostnames: [%[1]s.example.com]
  rules:
    - backendRefs:
        - name: %[1]s
          port: 80
---
apiVersion: v1
kind: Service
metadata:
  name: %[1]s
spec:
  selector: {app: %[1]s}
  ports: [{port: 80}]
`, team, gwNS, gw)
}

// The Applications of one cluster are analyzed together: a route in a team
// app resolves the Gateway of the platform app; a route to a Gateway that
// no app renders is an error naming its Application; a route into the
// namespace of an app whose source is elsewhere cannot be checked (a
// warning, never an error); and another cluster's Gateway does not
// resolve a route: there it cannot be checked.
func TestAnalyzeClusterAsOne(t *testing.T) {
	vendor := strings.ReplaceAll(application("vendor-edge", "vendor-gw", "deploy", ""), repoURL, "https://github.com/vendor/gateway.git")
	eu := strings.ReplaceAll(application("team-eu", "team-eu", "teams/eu", ""), "https://kubernetes.default.svc", "https://eu.example.com")
	root := writeRepo(t, map[string]string{
		"platform/gateway.yaml": platformGateway,
		"teams/good/route.yaml": route("good", "gateway-system", "web"),
		"teams/bad/route.yaml":  route("bad", "gateway-system", "missing"),
		"teams/vend/route.yaml": route("vend", "vendor-gw", "edge"),
		"teams/eu/route.yaml":   route("eu", "gateway-system", "web"),
		"argocd/platform.yaml":  application("platform", "gateway-system", "platform", ""),
		"argocd/good.yaml":      application("team-good", "team-good", "teams/good", ""),
		"argocd/bad.yaml":       application("team-bad", "team-bad", "teams/bad", ""),
		"argocd/vend.yaml":      application("team-vend", "team-vend", "teams/vend", ""),
		"argocd/vendor-gw.yaml": vendor,
		"argocd/eu.yaml":        eu,
	})
	res := build(t, root, Options{}, "argocd")
	outs := analyzeClusters(t, res)
	var servers []string
	byApp := map[string][]analysis.Finding{}
	for _, o := range outs {
		servers = append(servers, o.Cluster.Server)
		for _, f := range o.Findings {
			byApp[f.App] = append(byApp[f.App], f)
		}
	}
	equal(t, "clusters", servers, []string{"https://eu.example.com", "https://kubernetes.default.svc"})
	show := func(fs []analysis.Finding) string {
		var b strings.Builder
		for _, f := range fs {
			fmt.Fprintf(&b, "  %s %s %s: %s\n", f.Severity, f.Code, f.Object.Name, f.Message)
		}
		return b.String()
	}
	errorsOf := func(app string) []analysis.Finding {
		var out []analysis.Finding
		for _, f := range byApp[app] {
			if f.Severity == analysis.SeverityError {
				out = append(out, f)
			}
		}
		return out
	}
	if fs := errorsOf("argocd/team-good"); len(fs) != 0 {
		t.Errorf("team-good's route to the platform Gateway: want no error, got\n%s", show(fs))
	}
	if fs := errorsOf("argocd/team-bad"); !slices.ContainsFunc(fs, func(f analysis.Finding) bool {
		return f.Object.Kind == "HTTPRoute" && f.Object.Name == "bad" && strings.Contains(f.Message, "missing")
	}) {
		t.Errorf("team-bad's route to a Gateway nobody renders: want an error naming it, got\n%s", show(byApp["argocd/team-bad"]))
	}
	if fs := errorsOf("argocd/team-vend"); len(fs) != 0 {
		t.Errorf("team-vend's route into an unrendered app's namespace: want no error, got\n%s", show(fs))
	}
	if !slices.ContainsFunc(byApp["argocd/team-vend"], func(f analysis.Finding) bool {
		return f.Code == "RG0001" && strings.Contains(f.Message, "argocd/vendor-edge")
	}) {
		t.Errorf("team-vend: want RG0001 naming the unrendered Application, got\n%s", show(byApp["argocd/team-vend"]))
	}
	// On the eu cluster no Application renders gateway-system: the route
	// cannot be checked there (the in-cluster Gateway does not resolve it).
	if !slices.ContainsFunc(byApp["argocd/team-eu"], func(f analysis.Finding) bool {
		return f.Code == "RG0001" && strings.Contains(f.Message, "gateway-system/web")
	}) {
		t.Errorf("team-eu on another cluster: want RG0001 for its route, got\n%s", show(byApp["argocd/team-eu"]))
	}
}

// TestSharedObjectsOneNoticeEach: an object three Applications render is
// one warning naming them all, and an Application whose two sources render
// the same objects is one warning counting them, not one per object and
// pair (455 Applications of the project parity table made the notices on
// stderr overflow their cap).
func TestSharedObjectsOneNoticeEach(t *testing.T) {
	app := func(name, sources string) string {
		return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: " + name + ", namespace: argocd}\n" +
			"spec:\n  project: default\n  destination: {server: https://kubernetes.default.svc, namespace: team}\n" + sources + "---\n"
	}
	one := "  source: {repoURL: " + repoURL + ", path: objects, targetRevision: main}\n"
	two := "  sources:\n  - {repoURL: " + repoURL + ", path: objects, targetRevision: main}\n  - {repoURL: " + repoURL + ", path: objects, targetRevision: main}\n"
	root := writeRepo(t, map[string]string{
		"apps.yaml":      app("a", one) + app("b", one) + app("c", two),
		"objects/s.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n",
	})
	res := build(t, root, Options{}, "apps.yaml")
	var texts []string
	for _, n := range res.Notices {
		texts = append(texts, n.Text)
	}
	for _, c := range res.Clusters() {
		for _, n := range c.Notices {
			texts = append(texts, n.Text)
		}
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{
		"Application argocd/c: 2 objects are rendered by two of its sources: ",
		"Service team/web is rendered by 3 Applications: argocd/a, argocd/b, argocd/c (Argo CD reports a shared resource",
	} {
		if strings.Count(all, want) != 1 {
			t.Errorf("want one notice with %q:\n%s", want, all)
		}
	}
	if n := strings.Count(all, "rendered by"); n != 3 {
		t.Errorf("%d notices about shared objects, want 3 (c's sources, the Service, the ConfigMap):\n%s", n, all)
	}
}
