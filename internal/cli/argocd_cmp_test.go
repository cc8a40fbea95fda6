package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clusterViewRepo is a repository with a platform Application (the shared
// Gateway, allowing routes from namespaces as allowedFrom says) and a team
// Application on routeguard's plugin whose HTTPRoute attaches to it.
func clusterViewRepo(t *testing.T, allowedFrom string, config string) string {
	t.Helper()
	root := t.TempDir()
	app := func(name, ns, path, extra string) string {
		return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: " + name + ", namespace: argocd}\nspec:\n  project: default\n" +
			"  source:\n    repoURL: https://git.example.com/platform/shop-gitops.git\n    targetRevision: main\n    path: " + path + "\n" + extra +
			"  destination: {server: https://kubernetes.default.svc, namespace: " + ns + "}\n"
	}
	files := map[string]string{
		"argocd/platform.yaml": app("platform", "gateway-system", "platform", ""),
		"argocd/team.yaml":     app("team", "team", "team", "    plugin: {name: routeguard}\n"),
		"platform/gateway.yaml": "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: web, namespace: gateway-system}\nspec:\n  gatewayClassName: shared\n" +
			"  listeners:\n    - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: " + allowedFrom + "}}}\n",
		"team/route.yaml": "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: shop}\nspec:\n  parentRefs: [{name: web, namespace: gateway-system}]\n" +
			"  hostnames: [shop.example.com]\n  rules:\n    - backendRefs: [{name: shop, port: 80}]\n---\n" +
			"apiVersion: v1\nkind: Service\nmetadata: {name: shop}\nspec:\n  selector: {app: shop}\n  ports: [{port: 80}]\n",
	}
	if config != "" {
		files[".routeguard.yaml"] = config
	}
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// cmp generate with argocdClusterView: the team app's route is checked
// against the Gateway of the platform Application of the same cluster
// (accepted when the Gateway admits it, an error when it does not);
// without the declaration the Gateway's namespace cannot be checked.
func TestCMPGenerateClusterView(t *testing.T) {
	const view = "argocdClusterView:\n  roots: [argocd]\n"
	run := func(root string) (string, string, int) {
		return runCMPIn(context.Background(), filepath.Join(root, "team"), argoEnv("team", "team", "team"), "cmp", "generate")
	}

	stdout, stderr, code := run(clusterViewRepo(t, "All", view))
	if code != 0 || !strings.Contains(stdout, "kind: HTTPRoute") {
		t.Fatalf("admitted: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "argocdClusterView: Application argocd/team, cluster https://kubernetes.default.svc: 1 objects of its other Applications as context") {
		t.Errorf("admitted: no notice of the cluster view:\n%s", stderr)
	}
	if strings.Contains(stderr, "RG0001") || strings.Contains(stderr, "RG1") {
		t.Errorf("admitted: findings with the Gateway in view:\n%s", stderr)
	}

	stdout, stderr, code = run(clusterViewRepo(t, "Same", view))
	if code != ExitFindings || stdout != "" || !strings.Contains(stderr, "HTTPRoute team/shop") || !strings.Contains(stderr, "error") {
		t.Errorf("not admitted: exit %d, want 1 with the route's error\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	stdout, stderr, code = run(clusterViewRepo(t, "Same", ""))
	if code != 0 || stdout == "" || !strings.Contains(stderr, "RG0001") || strings.Contains(stderr, "argocdClusterView") {
		t.Errorf("no view declared: exit %d, want 0 with RG0001 (cannot check)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
