package affected

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/render"
)

// writeTree writes files (slash path -> content; content "->target"
// makes a symbolic link) under a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func clone(m map[string]string, edits map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	for k, v := range edits {
		if v == "" {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

const svc = "apiVersion: v1\nkind: Service\nmetadata: {name: %s}\nspec: {ports: [{port: 80}]}\n"

// A repository of three apps: two Kustomize overlays over a shared base
// (one also takes a component and a configMapGenerator file), a Helm chart
// with a values file outside its directory, and a plain directory.
var repo = map[string]string{
	"bases/web/kustomization.yaml":      "resources: [svc.yaml]\n",
	"bases/web/svc.yaml":                strings.Replace(svc, "%s", "web", 1),
	"components/tls/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonLabels: {tls: \"on\"}\n",
	"apps/a/kustomization.yaml":         "resources: [../../bases/web]\ncomponents: [../../components/tls]\nconfigMapGenerator: [{name: cfg, files: [../../config/a.properties]}]\n",
	"apps/b/kustomization.yaml":         "resources: [../../bases/web]\nnamePrefix: b-\n",
	"config/a.properties":               "x=1\n",
	"charts/shop/Chart.yaml":            "apiVersion: v2\nname: shop\nversion: 1.0.0\n",
	"charts/shop/templates/svc.yaml":    "apiVersion: v1\nkind: Service\nmetadata: {name: {{ .Values.name }}}\nspec: {ports: [{port: 80}]}\n",
	"charts/shop/values.yaml":           "name: shop\n",
	"values/shop-prod.yaml":             "name: shop-prod\n",
	"plain/d/svc.yaml":                  strings.Replace(svc, "%s", "d", 1),
	"README.md":                         "docs\n",
}

type appSpec struct {
	id     ID
	path   string
	values []string
}

var apps = []appSpec{
	{ID{Kind: "Application", Namespace: "argocd", Name: "a"}, "apps/a", nil},
	{ID{Kind: "Application", Namespace: "argocd", Name: "b"}, "apps/b", nil},
	{ID{Kind: "Application", Namespace: "argocd", Name: "shop"}, "charts/shop", []string{"../../values/shop-prod.yaml"}},
	{ID{Kind: "Application", Namespace: "argocd", Name: "d"}, "plain/d", nil},
}

// traced renders every app of the tree at root with a trace, as the
// builders do.
func traced(t *testing.T, root string) []App {
	t.Helper()
	var out []App
	for _, a := range apps {
		if _, err := os.Stat(filepath.Join(root, a.path)); err != nil {
			continue
		}
		tr := confine.NewTrace()
		opts := render.Options{Path: filepath.Join(root, a.path), RepoRoot: root, Trace: tr}
		opts.Helm.ValuesFiles = a.values
		if _, err := render.Render(context.Background(), opts); err != nil {
			t.Fatalf("render %s: %v", a.path, err)
		}
		out = append(out, App{ID: a.id, Definition: a.path, Trace: tr})
	}
	return out
}

func affectedNames(r *Result) []string {
	var out []string
	for id := range r.Affected {
		out = append(out, id.Name)
	}
	slices.Sort(out)
	return out
}

func TestComputeFromRenderTraces(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edits map[string]string
		want  []string
		unobs []string
	}{
		{name: "shared base", edits: map[string]string{"bases/web/svc.yaml": strings.Replace(svc, "%s", "web2", 1)}, want: []string{"a", "b"}},
		{name: "component", edits: map[string]string{"components/tls/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"}, want: []string{"a"}},
		{name: "generator file outside the app", edits: map[string]string{"config/a.properties": "x=2\n"}, want: []string{"a"}},
		{name: "values file outside the chart", edits: map[string]string{"values/shop-prod.yaml": "name: other\n"}, want: []string{"shop"}},
		{name: "chart template", edits: map[string]string{"charts/shop/templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: x}\n"}, want: []string{"shop"}},
		{name: "file added to a directory app", edits: map[string]string{"plain/d/more.yaml": strings.Replace(svc, "%s", "more", 1)}, want: []string{"d"}},
		{name: "file added to a base directory no kustomization lists", edits: map[string]string{"bases/web/unused.yaml": "x: 1\n"}, want: []string{"a", "b"}},
		{name: "docs only", edits: map[string]string{"README.md": "more docs\n"}, unobs: []string{"README.md"}},
		{name: "a new top-level directory", edits: map[string]string{"other/x.yaml": "x: 1\n"}, unobs: []string{"other", "other/x.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			baseFiles := repo
			headFiles := clone(repo, tc.edits)
			base, head := writeTree(t, baseFiles), writeTree(t, headFiles)
			changes, err := Between(base, head, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			res := Compute(Options{Changes: changes, Head: traced(t, head), Base: traced(t, base)})
			if res.All != "" {
				t.Fatalf("All: %s", res.All)
			}
			if got := affectedNames(res); !slices.Equal(got, tc.want) {
				t.Errorf("affected = %v, want %v (%v)", got, tc.want, res.Affected)
			}
			if !slices.Equal(res.Unobserved, tc.unobs) {
				t.Errorf("unobserved = %v, want %v", res.Unobserved, tc.unobs)
			}
		})
	}
}

func TestComputeDefinitionsAndNeeds(t *testing.T) {
	id := func(n string) ID { return ID{Kind: "Application", Namespace: "argocd", Name: n} }
	tr := confine.NewTrace()
	opaque := confine.NewTrace()
	opaque.Opaque("Kustomize helmCharts run in a child process")
	changes := NewChanges([]string{"apps/x/file.yaml"})
	head := []App{
		{ID: id("parent"), Definition: "p", Trace: tr},
		{ID: id("child"), Definition: "c1", Trace: tr, Needs: []ID{id("parent")}},
		{ID: id("grandchild"), Definition: "g", Trace: tr, Needs: []ID{id("child")}},
		{ID: id("steady"), Definition: "s", Trace: tr},
		{ID: id("opaque"), Definition: "o", Trace: opaque},
		{ID: id("untraced"), Definition: "u"},
		{ID: id("new"), Definition: "n", Trace: tr},
		{ID: id("watcher"), Definition: "w", Trace: tr, Watch: WatchPaths("/apps/*/file.yaml", nil)},
	}
	base := []App{
		{ID: id("parent"), Definition: "p", Trace: tr},
		{ID: id("child"), Definition: "c0", Trace: tr, Needs: []ID{id("parent")}},
		{ID: id("grandchild"), Definition: "g", Trace: tr, Needs: []ID{id("child")}},
		{ID: id("steady"), Definition: "s", Trace: tr},
		{ID: id("opaque"), Definition: "o", Trace: opaque},
		{ID: id("untraced"), Definition: "u"},
		{ID: id("gone"), Definition: "x", Trace: tr},
		{ID: id("watcher"), Definition: "w", Trace: tr},
	}
	res := Compute(Options{Changes: changes, Head: head, Base: base})
	want := []string{"child", "gone", "grandchild", "new", "opaque", "untraced", "watcher"}
	if got := affectedNames(res); !slices.Equal(got, want) {
		t.Fatalf("affected = %v, want %v (%v)", got, want, res.Affected)
	}
	for name, why := range map[string]string{"child": "definition changed", "grandchild": "needs Application/argocd/child",
		"new": "at head only", "gone": "at base only", "opaque": "child process", "watcher": "manifest-generate-paths"} {
		if r := res.Affected[id(name)]; !strings.Contains(r, why) {
			t.Errorf("%s: reason %q, want it to say %q", name, r, why)
		}
	}
	if res.Is(id("steady")) || res.Is(id("parent")) {
		t.Error("steady or parent affected")
	}
	if all := Compute(Options{Changes: NewChanges([]string{".routeguard.yaml"}), Head: head, Base: base, Global: []string{".routeguard.yaml"}}); all.All == "" || !all.Is(id("steady")) {
		t.Errorf("a global file changed, All = %q", all.All)
	}
	if all := Compute(Options{Head: head, Base: base}); all.All == "" {
		t.Error("unknown changes must affect everything")
	}
}

func TestWatchPaths(t *testing.T) {
	got := WatchPaths(".;../shared; /global/values.yaml;;/envs/*/common.yaml", []string{"apps/web", "apps/web-extra"})
	// Argo CD joins each relative item to each source in turn.
	want := []string{"apps/web", "apps/web-extra", "apps/shared", "apps/shared", "global/values.yaml", "envs/*/common.yaml"}
	if !slices.Equal(got, want) {
		t.Fatalf("WatchPaths = %v, want %v", got, want)
	}
	for _, tc := range []struct {
		item, changed string
		want          bool
	}{
		{"apps/web", "apps/web/values.yaml", true},
		{"apps/web", "apps/web", true},
		{"apps/web", "apps/web-extra/x.yaml", false},
		{"global/values.yaml", "global/values.yaml", true},
		{"envs/*/common.yaml", "envs/prod/common.yaml", true},
		{"envs/*/common.yaml", "envs/prod/other.yaml", false},
		{"", "anything/at/all", true},
	} {
		if got := watchMatch(tc.item, tc.changed); got != tc.want {
			t.Errorf("watchMatch(%q, %q) = %v, want %v", tc.item, tc.changed, got, tc.want)
		}
	}
}

func TestBetweenLinksAndTypes(t *testing.T) {
	base := writeTree(t, map[string]string{"real/a.yaml": "a: 1\n", "alias": "->real", "f": "x", "gone/x": "1"})
	head := writeTree(t, map[string]string{"real/a.yaml": "a: 2\n", "alias": "->real", "f/inner": "x"})
	c, err := Between(base, head, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"alias/a.yaml", "f", "f/inner", "gone", "gone/x", "real/a.yaml"}
	if !slices.Equal(c.Paths(), want) {
		t.Errorf("changes = %v, want %v", c.Paths(), want)
	}
	if got := c.Under("gone"); !slices.Equal(got, []string{"gone", "gone/x"}) {
		t.Errorf("Under(gone) = %v", got)
	}
}

func TestParseList(t *testing.T) {
	c, err := ParseList(strings.NewReader("# changed\napps/a/x.yaml\n\n./apps/b/y.yaml\r\n/bases/z.yaml\n.git/config\napps/a/x.yaml\n"), "changed.txt")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"apps/a/x.yaml", "apps/b/y.yaml", "bases/z.yaml"}; !slices.Equal(c.Paths(), want) {
		t.Errorf("paths = %v, want %v", c.Paths(), want)
	}
	for in, want := range map[string]string{
		"ok.yaml\n../outside.yaml\n": "changed.txt:2: \"../outside.yaml\" is outside the repository",
		"a\x00b\n":                   "changed.txt:1:",
	} {
		if _, err := ParseList(strings.NewReader(in), "changed.txt"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseList(%q) error = %v, want %q", in, err, want)
		}
	}
}
