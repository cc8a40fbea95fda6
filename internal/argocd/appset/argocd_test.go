package appset

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// cases are compat/argocd/appset/testdata: ApplicationSets (from examples/,
// test/corpus and fixtures after real repositories' shapes) and the
// Applications Argo CD v3.5.7's own applicationset controller code
// generated from them (compat/argocd/appset checks that file against Argo
// CD's generators).
var cases = filepath.Join("..", "..", "..", "compat", "argocd", "appset", "testdata")

type argoCase struct {
	ApplicationSet struct {
		Metadata struct {
			Namespace string `json:"namespace"`
		} `json:"metadata"`
		Spec Spec `json:"spec"`
	} `json:"applicationSet"`
	Repo struct {
		URL         string                       `json:"url"`
		Directories []string                     `json:"directories"`
		Files       map[string]map[string]string `json:"files"`
	} `json:"repo"`
	Clusters []struct {
		Name   string            `json:"name"`
		Server string            `json:"server"`
		Labels map[string]string `json:"labels"`
	} `json:"clusters"`
}

// caseRepo gives the git generators the same listing as the compat test
// gives Argo CD's.
type caseRepo struct{ c *argoCase }

func (r caseRepo) IsThis(u string) bool           { return u == r.c.Repo.URL }
func (r caseRepo) Directories() ([]string, error) { return r.c.Repo.Directories, nil }
func (r caseRepo) Files(pattern string, _ bool) (map[string][]byte, error) {
	out := map[string][]byte{}
	for p, c := range r.c.Repo.Files[pattern] {
		out[p] = []byte(c)
	}
	return out, nil
}

// argoDifferences are what routeguard's expansion leaves out on purpose,
// listed in docs/argocd.md ("ApplicationSets compared with Argo CD"): the
// resources finalizer Argo CD's controller adds (it decides what a deletion
// of the Application prunes, nothing that is rendered).
func argoDifferences(app map[string]any) {
	md := app["metadata"].(map[string]any)
	if f, ok := md["finalizers"].([]any); ok {
		var keep []any
		for _, x := range f {
			if x != "resources-finalizer.argocd.argoproj.io" {
				keep = append(keep, x)
			}
		}
		if len(keep) == 0 {
			delete(md, "finalizers")
		} else {
			md["finalizers"] = keep
		}
	}
}

// TestMatchesArgoCD: routeguard's expansion of every case gives, object by
// object, the Applications Argo CD's applicationset controller code gives
// (metadata name, namespace, labels, annotations, finalizers and the whole
// spec), except the differences argoDifferences lists.
func TestMatchesArgoCD(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(cases, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".applications.yaml") {
			continue
		}
		n++
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var c argoCase
			if err := yaml.Unmarshal(raw, &c); err != nil {
				t.Fatal(err)
			}
			env := Env{Repo: caseRepo{&c}, ClustersKnown: true}
			for _, cl := range c.Clusters {
				env.Clusters = append(env.Clusters, Cluster{Name: cl.Name, Server: cl.Server, Labels: cl.Labels})
			}
			apps, err := Expand(c.ApplicationSet.Spec, c.ApplicationSet.Metadata.Namespace, env)
			if err != nil {
				t.Fatal(err)
			}
			got := normalize(t, apps)
			goldenRaw, err := os.ReadFile(strings.TrimSuffix(f, ".yaml") + ".applications.yaml")
			if err != nil {
				t.Fatal(err)
			}
			var want []map[string]any
			if err := yaml.Unmarshal(goldenRaw, &want); err != nil {
				t.Fatal(err)
			}
			want = roundTrip(t, want)
			for _, w := range want {
				argoDifferences(w)
			}
			if len(got) != len(want) {
				t.Fatalf("%d Applications, Argo CD %d", len(got), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					g, _ := yaml.Marshal(got[i])
					w, _ := yaml.Marshal(want[i])
					t.Errorf("Application %d differs from Argo CD's:\n--- routeguard\n%s--- Argo CD\n%s", i, g, w)
				}
			}
		})
	}
	if n < 5 {
		t.Fatalf("only %d cases in %s", n, cases)
	}
}

// normalize keeps what the compat test keeps of Argo CD's Applications, in
// the same order (by name).
func normalize(t *testing.T, apps []map[string]any) []map[string]any {
	var out []map[string]any
	for _, a := range apps {
		md, _ := a["metadata"].(map[string]any)
		keep := map[string]any{}
		for _, k := range []string{"name", "namespace", "labels", "annotations", "finalizers"} {
			if v, ok := md[k]; ok {
				if m, isMap := v.(map[string]any); isMap && len(m) == 0 {
					continue
				}
				if l, isList := v.([]any); isList && len(l) == 0 {
					continue
				}
				keep[k] = v
			}
		}
		out = append(out, map[string]any{"metadata": keep, "spec": a["spec"]})
	}
	out = roundTrip(t, out)
	sort.SliceStable(out, func(i, j int) bool {
		return out[i]["metadata"].(map[string]any)["name"].(string) < out[j]["metadata"].(map[string]any)["name"].(string)
	})
	return out
}

// roundTrip passes v through JSON, so that both sides compare as the same
// Go types.
func roundTrip(t *testing.T, v []map[string]any) []map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
