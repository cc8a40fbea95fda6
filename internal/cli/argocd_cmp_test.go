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

// cmp generate with the cluster view applies the Application's AppProject
// (ARGOCD_APP_PROJECT_NAME, the project file of the sidecar's own
// environment, else the repository's projects) to what the app renders:
// a kind the project does not permit fails the generate with Argo CD's
// own wording; the plugin env of the Application cannot name the file.
func TestCMPGenerateProjectRules(t *testing.T) {
	const view = "argocdClusterView:\n  roots: [argocd]\n"
	routesOnly := "apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: team, namespace: argocd}\nspec:\n  sourceRepos: ['*']\n" +
		"  destinations: [{server: '*', namespace: team}]\n  namespaceResourceWhitelist: [{group: gateway.networking.k8s.io, kind: HTTPRoute}]\n"
	root := clusterViewRepo(t, "All", view)
	if err := os.WriteFile(filepath.Join(root, "argocd", "project.yaml"), []byte(routesOnly), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(extra ...string) (string, string, int) {
		return runCMPIn(context.Background(), filepath.Join(root, "team"), argoEnv("team", "team", "team", extra...), "cmp", "generate")
	}
	// The Application says project default: Argo CD's default permits it.
	if stdout, stderr, code := run(); code != 0 || stdout == "" {
		t.Fatalf("project default: exit %d\n%s", code, stderr)
	}
	stdout, stderr, code := run("ARGOCD_APP_PROJECT_NAME", "team")
	want := `RG0201 error Service team/shop: Argo CD will refuse the sync: "resource :Service is not permitted in project team"`
	if code != ExitFindings || stdout != "" || !strings.Contains(stderr, want) {
		t.Fatalf("project team: exit %d, want 1 with %s\nstderr:\n%s", code, want, stderr)
	}
	permissive := filepath.Join(t.TempDir(), "projects.yaml")
	if err := os.WriteFile(permissive, []byte(strings.Replace(routesOnly, "kind: HTTPRoute}]", "kind: HTTPRoute}, {group: '', kind: Service}]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run("ARGOCD_APP_PROJECT_NAME", "team", "ROUTEGUARD_PROJECT_FILE", permissive); code != 0 {
		t.Errorf("the sidecar's project file permits it: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := run("ARGOCD_APP_PROJECT_NAME", "team", "ARGOCD_ENV_ROUTEGUARD_PROJECT_FILE", permissive); code != ExitError ||
		!strings.Contains(stderr, "is not one routeguard reads") {
		t.Errorf("the Application's plugin env chose the project file: exit %d\n%s", code, stderr)
	}
}
