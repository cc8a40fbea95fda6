package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/test/harness"
)

// The AppProject rules as `routeguard argocd analyze` applies them: each
// precedence case on a small repository, through the binary. (Each rule's
// broken example is in examples/broken/argocd-project-*; the verdicts are
// compared with Argo CD's own code in compat/argocd/project.)

const projectRepoURL = "https://git.example.com/team/web.git"

// projectRepo is a repository with one Application web (project, and
// destination namespace web unless spec says otherwise) rendering objects.
func projectRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	all := map[string]string{
		"app.yaml": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web, namespace: argocd}
spec:
  project: web-team
  source: {repoURL: ` + projectRepoURL + `, path: app, targetRevision: main}
  destination: {server: https://kubernetes.default.svc, namespace: web}
`,
		"app/ingress.yaml": `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  ingressClassName: nginx
  defaultBackend: {service: {name: web, port: {number: 80}}}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {ports: [{port: 80}]}
`,
	}
	for k, v := range files {
		if v == "" {
			delete(all, k)
			continue
		}
		all[k] = v
	}
	return writeRepo(t, all)
}

type projectFinding struct {
	Code   string `json:"code"`
	Object struct {
		Kind      string `json:"kind"`
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"object"`
	Message string `json:"message"`
}

// projectFindings runs argocd analyze in dir and returns the RG02xx
// findings as "CODE Kind ns/name", and stderr.
func projectFindings(t *testing.T, dir string, args ...string) ([]string, string, int) {
	t.Helper()
	r := harness.Run(t, harness.Options{Dir: dir}, append([]string{"argocd", "analyze", "-o", "json", "--repo-url", projectRepoURL}, append(args, ".")...)...)
	if r.Code == 2 {
		t.Fatalf("exit 2: %s", r.Stderr)
	}
	var doc struct{ Findings []projectFinding }
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.Stdout)
	}
	var out []string
	for _, f := range doc.Findings {
		if strings.HasPrefix(f.Code, "RG02") {
			out = append(out, f.Code+" "+f.Object.Kind+" "+f.Object.Namespace+"/"+f.Object.Name)
		}
	}
	slices.Sort(out)
	return out, r.Stderr, r.Code
}

const ingressOnly = `apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: web-team, namespace: argocd}
spec:
  sourceRepos: [` + projectRepoURL + `]
  destinations: [{server: https://kubernetes.default.svc, namespace: web}]
  namespaceResourceWhitelist: [{group: networking.k8s.io, kind: Ingress}]
`

func TestProjectPrecedence(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		args   []string
		want   []string
		stderr string // must be in stderr
	}{
		{name: "whitelist refuses the Service", files: map[string]string{"project.yaml": ingressOnly},
			want: []string{"RG0201 Service web/web"}},
		{name: "--project-file replaces the repository's project", files: map[string]string{"project.yaml": ingressOnly},
			args: []string{"--project-file", "PROJECT_FILE"}},
		{name: "the Application's own project is not in the repository", files: map[string]string{},
			stderr: "AppProject rules not checked for Application argocd/web: its AppProject web-team is neither in the repository nor given with --project-file"},
		{name: "default is Argo CD's default when the repository has none", files: map[string]string{
			"app.yaml": strings.Replace(projectRepoAppYAML(), "project: web-team", "project: default", 1)}},
		{name: "a default project in the repository replaces the built-in one", files: map[string]string{
			"app.yaml":     strings.Replace(projectRepoAppYAML(), "project: web-team", "project: \"\"", 1),
			"project.yaml": strings.Replace(ingressOnly, "name: web-team", "name: default", 1)},
			want: []string{"RG0201 Service web/web"}},
		{name: "a project the root renders replaces the scanned one", files: map[string]string{
			"project.yaml": ingressOnly,
			"root.yaml": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: root, namespace: argocd}
spec:
  project: default
  source: {repoURL: ` + projectRepoURL + `, path: projects, targetRevision: main}
  destination: {server: https://kubernetes.default.svc, namespace: argocd}
`,
			"projects/web-team.yaml": strings.Replace(ingressOnly, "kind: Ingress}]", "kind: Ingress}, {group: \"\", kind: Service}]", 1)}},
		{name: "Argo CD installed into argo-cd: its Applications there need no sourceNamespaces", files: map[string]string{
			"app.yaml": strings.Replace(strings.Replace(projectRepoAppYAML(), "project: web-team", "project: default", 1), "namespace: argocd}", "namespace: argo-cd}", 1)},
			stderr: "names argo-cd: taken as the namespace Argo CD runs in"},
		{name: "Applications in several namespaces: Argo CD's is argocd", files: map[string]string{
			"project.yaml": ingressOnly,
			"app.yaml":     strings.Replace(projectRepoAppYAML(), "namespace: argocd}", "namespace: team-a}", 1)},
			want: []string{"RG0205 Application team-a/web"}},
		{name: "the project in that one namespace is Argo CD's", files: map[string]string{
			"project.yaml": strings.Replace(ingressOnly, "namespace: argocd}", "namespace: team-a}", 1),
			"app.yaml":     strings.Replace(projectRepoAppYAML(), "namespace: argocd}", "namespace: team-a}", 1)},
			want: []string{"RG0201 Service web/web"}, stderr: "names team-a: taken as the namespace Argo CD runs in"},
		{name: "--app-namespace says otherwise", files: map[string]string{
			"project.yaml": strings.Replace(ingressOnly, "namespace: argocd}", "namespace: team-a}", 1),
			"app.yaml":     strings.Replace(projectRepoAppYAML(), "namespace: argocd}", "namespace: team-a}", 1)},
			args: []string{"--app-namespace", "argocd"}, stderr: "AppProject web-team (project.yaml:1) is in namespace team-a, not Argo CD's (argocd)"},
		{name: "refused Applications are not synced: their objects are not checked", files: map[string]string{
			"project.yaml": strings.Replace(ingressOnly, "namespace: web}", "namespace: other}", 1)},
			want: []string{"RG0204 Application argocd/web"}},
		{name: "blacklist wins over a whitelist glob", files: map[string]string{
			"project.yaml": strings.Replace(ingressOnly, "[{group: networking.k8s.io, kind: Ingress}]", "[{group: \"*\", kind: \"*\"}]\n  namespaceResourceBlacklist: [{group: \"\", kind: Service}]", 1)},
			want: []string{"RG0201 Service web/web"}},
		{name: "an explicit namespace outside the destinations", files: map[string]string{
			"project.yaml":     strings.Replace(ingressOnly, "[{group: networking.k8s.io, kind: Ingress}]", "[{group: \"*\", kind: \"*\"}]", 1),
			"app/ingress.yaml": strings.Replace(projectIngress, "metadata: {name: web}", "metadata: {name: web, namespace: payments}", 1)},
			want: []string{"RG0202 Ingress payments/web"}},
		{name: "a cluster known only by name with name destinations cannot be checked", files: map[string]string{
			"project.yaml": strings.Replace(ingressOnly, "{server: https://kubernetes.default.svc, namespace: web}", "{name: prod, namespace: web}", 1),
			"app.yaml":     strings.Replace(projectRepoAppYAML(), "server: https://kubernetes.default.svc", "server: https://prod.example.com", 1)},
			// The Service is refused wherever the Application goes.
			want: []string{"RG0201 Service web/web"}, stderr: "whether AppProject web-team permits its destination cannot be checked"},
		{name: "the same cluster given with --cluster is checked", files: map[string]string{
			"project.yaml": strings.Replace(ingressOnly, "{server: https://kubernetes.default.svc, namespace: web}", "{name: prod, namespace: web}", 1),
			"app.yaml":     strings.Replace(projectRepoAppYAML(), "server: https://kubernetes.default.svc", "server: https://prod.example.com", 1)},
			args: []string{"--cluster", "prod=https://prod.example.com"}, want: []string{"RG0201 Service web/web"}},
		{name: "a custom kind of unknown scope refused either way", files: map[string]string{"project.yaml": ingressOnly,
			"app/cert.yaml": "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: web}\nspec: {secretName: web-tls}\n"},
			want: []string{"RG0201 Certificate web/web", "RG0201 Service web/web"}},
		{name: "a custom kind whose scope decides is not checked", files: map[string]string{
			"project.yaml":  strings.Replace(ingressOnly, "namespaceResourceWhitelist: [{group: networking.k8s.io, kind: Ingress}]", "clusterResourceWhitelist: [{group: \"*\", kind: \"*\"}]\n  namespaceResourceBlacklist: [{group: cert-manager.io, kind: \"*\"}]", 1),
			"app/cert.yaml": "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: web}\nspec: {secretName: web-tls}\n"},
			stderr: "AppProject web-team permits cert-manager.io/Certificate only if namespaced (or only if cluster-scoped)"},
		{name: "its CRD in the repository says which", files: map[string]string{
			"project.yaml":  strings.Replace(ingressOnly, "namespaceResourceWhitelist: [{group: networking.k8s.io, kind: Ingress}]", "clusterResourceWhitelist: [{group: \"*\", kind: \"*\"}]\n  namespaceResourceBlacklist: [{group: cert-manager.io, kind: \"*\"}]", 1),
			"app/cert.yaml": "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: web}\nspec: {secretName: web-tls}\n",
			"app/crd.yaml":  "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: certificates.cert-manager.io}\nspec:\n  group: cert-manager.io\n  scope: Namespaced\n  names: {kind: Certificate, plural: certificates}\n  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]\n"},
			want: []string{"RG0201 Certificate web/web"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := projectRepo(t, tt.files)
			args := slices.Clone(tt.args)
			for i, a := range args {
				if a == "PROJECT_FILE" {
					p := filepath.Join(t.TempDir(), "projects.yaml")
					permissive := strings.Replace(ingressOnly, "kind: Ingress}]", "kind: Ingress}, {group: \"\", kind: Service}]", 1)
					if err := os.WriteFile(p, []byte(permissive), 0o644); err != nil {
						t.Fatal(err)
					}
					args[i] = p
				}
			}
			got, stderr, code := projectFindings(t, dir, args...)
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings %v, want %v\nstderr: %s", got, tt.want, stderr)
			}
			if wantCode := min(len(tt.want), 1); code != wantCode {
				t.Errorf("exit %d, want %d", code, wantCode)
			}
			if tt.stderr != "" && !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
		})
	}
}

func projectRepoAppYAML() string {
	return `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web, namespace: argocd}
spec:
  project: web-team
  source: {repoURL: ` + projectRepoURL + `, path: app, targetRevision: main}
  destination: {server: https://kubernetes.default.svc, namespace: web}
  syncPolicy: {automated: {}}
`
}

const projectIngress = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  ingressClassName: nginx
  defaultBackend: {service: {name: web, port: {number: 80}}}
`

// Sync windows are a notice, at the time --now says, the same bytes for
// the same time.
func TestProjectSyncWindows(t *testing.T) {
	project := strings.Replace(ingressOnly, "kind: Ingress}]", "kind: Ingress}, {group: \"\", kind: Service}]\n  syncWindows:\n    - {kind: deny, schedule: \"0 22 * * *\", duration: 8h, applications: [\"*\"]}", 1)
	dir := projectRepo(t, map[string]string{"project.yaml": project, "app.yaml": projectRepoAppYAML()})
	for now, blocked := range map[string]bool{"2026-03-10T23:30:00Z": true, "2026-03-10T12:00:00Z": false} {
		got, stderr, code := projectFindings(t, dir, "--now", now)
		if len(got) != 0 || code != 0 {
			t.Errorf("%s: findings %v, exit %d: a window is no error", now, got, code)
		}
		note := "routeguard: note: Application argocd/web: the sync windows of AppProject web-team block its automated sync at " + now
		if strings.Contains(stderr, note) != blocked {
			t.Errorf("%s: blocked %v, stderr:\n%s", now, blocked, stderr)
		}
	}
	r := harness.Run(t, harness.Options{Dir: dir}, "argocd", "analyze", "--now", "yesterday", ".")
	if r.Code != 2 || !strings.Contains(r.Stderr, "--now \"yesterday\": want RFC 3339") || r.Stdout != "" {
		t.Errorf("--now yesterday: exit %d, stdout %q, stderr %s", r.Code, r.Stdout, r.Stderr)
	}
}
