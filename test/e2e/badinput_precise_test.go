package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/test/harness"
)

// TestBadInputPrecise: inputs that used to get a vague or no answer get
// one that says what is wrong, at file:line: exit 2, nothing on stdout.
func TestBadInputPrecise(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
	named := func(kind, name string) string {
		return "apiVersion: v1\nkind: " + kind + "\nmetadata:\n  name: " + name + "\n"
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		app   string
		want  string
	}{
		{"bom before the second document", map[string]string{"app/a.yaml": cm + "---\n\ufeffapiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"}, "app",
			`app/a.yaml:6: the document starts with a byte order mark (U+FEFF) before "apiVersion"`},
		{"apiVersion a number", map[string]string{"app/a.yaml": "apiVersion: 5\nkind: ConfigMap\nmetadata:\n  name: a\n"}, "app",
			"app/a.yaml:1: apiVersion is the number 5, not a string"},
		{"list in a list", map[string]string{"app/a.yaml": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - " +
			strings.ReplaceAll(strings.TrimSpace(cm), "\n", "\n    ") + "\n"}, "app",
			"app/a.yaml:4: item 0 of List is itself a List"},
		{"kustomization includes itself", map[string]string{"k/kustomization.yaml": "resources:\n- cm.yaml\n- .\n", "k/cm.yaml": cm}, "k",
			"the kustomizations form a cycle: k/kustomization.yaml:3 (resources: .), which is k again"},
		{"loop of bases", map[string]string{"a/kustomization.yaml": "resources:\n- ../b\n", "b/kustomization.yaml": "resources:\n- ../c\n",
			"c/kustomization.yaml": "components:\n- ../a\n"}, "a",
			"a/kustomization.yaml:2 (resources: ../b) → b/kustomization.yaml:2 (resources: ../c) → c/kustomization.yaml:2 (components: ../a), which is a again"},
		{"name with a slash", map[string]string{"app/a.yaml": named("ConfigMap", `"a/b"`)}, "app",
			`app/a.yaml:4: ConfigMap "a/b": metadata.name is not a name the API server accepts for a ConfigMap: may not contain '/'`},
		{"name with a control character", map[string]string{"app/a.yaml": named("ConfigMap", `"a\eb"`)}, "app",
			`app/a.yaml:4: ConfigMap "a\x1bb": metadata.name is not a name the API server accepts for a ConfigMap: a lowercase RFC 1123 subdomain`},
		{"name of 100,000 characters", map[string]string{"app/a.yaml": named("ConfigMap", strings.Repeat("x", 100000))}, "app",
			"…(+99,920 characters)\": metadata.name is not a name the API server accepts for a ConfigMap: must be no more than 253 characters"},
		{"service name with upper case", map[string]string{"app/a.yaml": named("Service", "Web")}, "app",
			`app/a.yaml:4: Service "Web": metadata.name is not a name the API server accepts for a Service: a lowercase RFC 1123 label`},
		{"custom resource name", map[string]string{"app/a.yaml": "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: Web_Route, namespace: shop}\nspec: {}\n"}, "app",
			`HTTPRoute "Web_Route": metadata.name is not a name the API server accepts for a HTTPRoute: a lowercase RFC 1123 subdomain`},
		{"name in a kustomization", map[string]string{"k/kustomization.yaml": "resources: [cm.yaml]\nnamePrefix: Team_\n", "k/cm.yaml": cm}, "k",
			`ConfigMap "Team_a": metadata.name is not a name the API server accepts`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, _ := hostileRepo(t, tc.files)
			r := harness.Run(t, harness.Options{Dir: repo}, "render", tc.app)
			if r.Code != 2 || r.Stdout != "" {
				t.Fatalf("exit %d, %d bytes on stdout; want exit 2 and nothing (stderr: %s)", r.Code, len(r.Stdout), r.Stderr)
			}
			if !strings.Contains(r.Stderr, tc.want) {
				t.Fatalf("stderr %q\ndoes not say %q", r.Stderr, tc.want)
			}
			for _, vague := range []string{"has no apiVersion", "has no metadata.name", "is a directory, not a file"} {
				if strings.Contains(r.Stderr, vague) {
					t.Errorf("stderr still says %q: %s", vague, r.Stderr)
				}
			}
		})
	}
}

// Names the API server accepts still render: a Flux variable that is
// substituted later, RBAC names with colons, generateName prefixes.
func TestNamesStillRender(t *testing.T) {
	repo, _ := hostileRepo(t, map[string]string{
		"app/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \"app-${CLUSTER}\"}\n---\n" +
			"apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: \"system:controller:web\"}\n---\n" +
			"apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: migrate-}\nspec: {template: {spec: {containers: [{name: m, image: x:1}], restartPolicy: Never}}}\n",
	})
	r := harness.Run(t, harness.Options{Dir: repo}, "render", "app")
	if r.Code != 0 || !strings.Contains(r.Stdout, "app-${CLUSTER}") || !strings.Contains(r.Stdout, "system:controller:web") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
}

// A symbolic link to a directory in a recursive directory app is not
// followed (as Argo CD's directory source): it is said, naming it.
func TestSymlinkedDirectoryWarned(t *testing.T) {
	repo, _ := hostileRepo(t, map[string]string{
		"app/a.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
		"shared/b.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
		"app/shared-link":  "->../shared",
		"app/outside-link": "->$OUTSIDE",
	})
	r := harness.Run(t, harness.Options{Dir: repo}, "render", "--recurse", "app")
	if r.Code != 0 || !strings.Contains(r.Stdout, "name: a") || strings.Contains(r.Stdout, "name: b") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	for _, want := range []string{"warning: app/shared-link is a symbolic link to a directory; a directory app does not follow it",
		"warning: app/outside-link is a symbolic link that leads outside the repository"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr %q does not say %q", r.Stderr, want)
		}
	}
}

// 200 patches over 200 objects are 40,000 strategic merges inside
// Kustomize, which cannot be asked to stop: --timeout ends the run with
// routeguard's message naming the kustomization (and nothing on stdout).
func TestPatchFanOutStoppedByTimeout(t *testing.T) {
	var res, k strings.Builder
	for i := range 200 {
		fmt.Fprintf(&res, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d%d, labels: {app: d%d}}\n"+
			"spec: {selector: {matchLabels: {app: d%d}}, template: {metadata: {labels: {app: d%d}}, spec: {containers: [{name: c, image: nginx:1}]}}}\n", i, i, i, i)
	}
	k.WriteString("resources: [res.yaml]\npatches:\n")
	for j := range 200 {
		fmt.Fprintf(&k, "- target: {kind: Deployment}\n  patch: |-\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata: {name: any, labels: {l%d: v}}\n", j)
	}
	repo, _ := hostileRepo(t, map[string]string{"fan/res.yaml": res.String(), "fan/kustomization.yaml": k.String()})
	r := harness.Run(t, harness.Options{Dir: repo}, "render", "--timeout", "3s", "fan")
	refused(t, r, "stopped after 3s while working on the Kustomize build of fan/kustomization.yaml (200 patches")
}

// A Helm template that includes itself fails a thousand levels deep; the
// message says it once and counts the rest (it was 93 KB of stderr).
func TestRecursiveIncludeCollapsed(t *testing.T) {
	repo, _ := hostileRepo(t, map[string]string{
		"chart/Chart.yaml":          chartYAML,
		"chart/templates/loop.yaml": "{{- define \"r\" }}{{ include \"r\" . }}{{ end }}\n{{ include \"r\" . }}\n",
	})
	r := harness.Run(t, harness.Options{Dir: repo}, "render", "chart")
	refused(t, r, "chart: helm template failed")
	if len(r.Stderr) > 2000 || !strings.Contains(r.Stderr, "more times]") || !strings.Contains(r.Stderr, "nested reference name") {
		t.Fatalf("stderr is %d bytes: %s", len(r.Stderr), r.Stderr)
	}
}

// readOnlyRootFilesystem: "on" stays the string "on" in Kustomize output,
// as `kustomize build` writes it (quoted) and so as Argo CD and Flux apply
// it: sigs.k8s.io/yaml reads a quoted "on" as a string, an unquoted on as
// true. The API server refuses the string in a boolean field, and analyze
// says so; ConfigMap data keeps "on" as text.
func TestYAML11BooleanInKustomizeOutput(t *testing.T) {
	dep := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n" +
		"spec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n" +
		"      - name: web\n        image: nginx:1.27\n        securityContext: {readOnlyRootFilesystem: \"on\"}\n" +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags, namespace: shop}\ndata: {feature: \"on\"}\n"
	repo, _ := hostileRepo(t, map[string]string{"k/kustomization.yaml": "resources: [app.yaml]\n", "k/app.yaml": dep})
	r := harness.Run(t, harness.Options{Dir: repo}, "render", "k")
	if r.Code != 0 || strings.Count(r.Stdout, `: "on"`) != 2 {
		t.Fatalf("render: exit %d, want both values as the string \"on\":\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	r = harness.Run(t, harness.Options{Dir: repo}, "analyze", "k")
	if r.Code != 1 || !strings.Contains(r.Stdout, "readOnlyRootFilesystem: Invalid value: a string where a boolean belongs") ||
		strings.Contains(r.Stdout, "ConfigMap shop/flags") {
		t.Fatalf("analyze: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

// A Kustomization whose build holds a name the API server refuses fails as
// kustomize-controller's apply would: RG0101 naming the object.
func TestFluxKustomizationInvalidName(t *testing.T) {
	repo, _ := hostileRepo(t, map[string]string{
		"clusters/prod/apps.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\n" +
			"spec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
		"apps/kustomization.yaml": "resources: [cm.yaml]\n",
		"apps/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name, namespace: default}\n",
	})
	r := harness.Run(t, harness.Options{Dir: repo}, "flux", "build", "--all", "clusters/prod")
	if r.Code != 1 || !strings.Contains(r.Stdout+r.Stderr, `ConfigMap "Bad_Name": metadata.name is not a name the API server accepts`) ||
		!strings.Contains(r.Stdout+r.Stderr, "RG0101") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
}
