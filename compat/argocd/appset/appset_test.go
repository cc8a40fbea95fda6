package appset

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	log "github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	"github.com/argoproj/argo-cd/v3/applicationset/controllers/template"
	"github.com/argoproj/argo-cd/v3/applicationset/generators"
	"github.com/argoproj/argo-cd/v3/applicationset/utils"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
)

var update = flag.Bool("update", false, "write testdata/<case>.applications.yaml from Argo CD's expansion")

// Case is one testdata/<case>.yaml: an ApplicationSet and what the
// repo-server and the cluster secrets would give its generators.
type Case struct {
	// ApplicationSet as in the repository (examples/, test/corpus or a
	// fixture written after a real repository's shape).
	ApplicationSet map[string]any `json:"applicationSet"`
	// Repo: the repository the git generators read (the repo-server's
	// listing, which cannot run here: both sides get the same).
	Repo struct {
		URL         string   `json:"url"`
		Directories []string `json:"directories"`
		// Files per git file generator pattern: path -> content.
		Files map[string]map[string]string `json:"files"`
	} `json:"repo"`
	// Clusters Argo CD knows (cluster secrets); the cluster generator.
	Clusters []struct {
		Name   string            `json:"name"`
		Server string            `json:"server"`
		Labels map[string]string `json:"labels"`
	} `json:"clusters"`
}

// repos is the repo-server for the git generator: the case's listing.
type repos struct{ c *Case }

func (r repos) GetFiles(_ context.Context, repoURL, _, _, pattern string, _ bool, _ *v1alpha1.SourceIntegrity) (map[string][]byte, error) {
	if repoURL != r.c.Repo.URL {
		return nil, fmt.Errorf("repository %s is not the case's", repoURL)
	}
	out := map[string][]byte{}
	for p, content := range r.c.Repo.Files[pattern] {
		out[p] = []byte(content)
	}
	return out, nil
}

func (r repos) GetDirectories(_ context.Context, repoURL, _, _ string, _ bool, _ *v1alpha1.SourceIntegrity) ([]string, error) {
	if repoURL != r.c.Repo.URL {
		return nil, fmt.Errorf("repository %s is not the case's", repoURL)
	}
	return r.c.Repo.Directories, nil
}

const namespace = "argocd"

// expand runs Argo CD's applicationset controller's GenerateApplications
// with its own generators (generators.GetGenerators) and renderer.
func expand(t *testing.T, c *Case) []v1alpha1.Application {
	t.Helper()
	raw, err := yaml.Marshal(c.ApplicationSet)
	if err != nil {
		t.Fatal(err)
	}
	var as v1alpha1.ApplicationSet
	if err := yaml.UnmarshalStrict(raw, &as); err != nil {
		t.Fatalf("not an Argo CD v3 ApplicationSet: %v", err)
	}
	var secrets []runtime.Object
	for _, cl := range c.Clusters {
		labels := map[string]string{"argocd.argoproj.io/secret-type": "cluster"}
		for k, v := range cl.Labels {
			labels[k] = v
		}
		secrets = append(secrets, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "cluster-" + cl.Name, Namespace: namespace, Labels: labels},
			Data:       map[string][]byte{"name": []byte(cl.Name), "server": []byte(cl.Server), "config": []byte("{}")},
		})
	}
	// The git generator reads the template's AppProject (source integrity).
	for _, p := range []string{"default", "teams", "platform"} {
		secrets = append(secrets, &v1alpha1.AppProject{ObjectMeta: metav1.ObjectMeta{Name: p, Namespace: namespace},
			Spec: v1alpha1.AppProjectSpec{SourceRepos: []string{"*"}}})
	}
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	client := crfake.NewClientBuilder().WithScheme(scheme).WithRuntimeObjects(secrets...).Build()
	gens := generators.GetGenerators(context.Background(), client, kubefake.NewSimpleClientset(), namespace, repos{c},
		dynamicfake.NewSimpleDynamicClient(scheme), generators.SCMConfig{}, nil)
	apps, _, err := template.GenerateApplications(log.NewEntry(log.StandardLogger()), as, gens, &utils.Render{}, client)
	if err != nil {
		t.Fatalf("Argo CD's GenerateApplications: %v", err)
	}
	return apps
}

// Normalized is an Application as both sides are compared: name,
// namespace, labels, annotations and finalizers of its metadata, and its
// spec as Argo CD's type writes it.
func normalized(t *testing.T, apps []v1alpha1.Application) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, a := range apps {
		md := map[string]any{"name": a.Name, "namespace": a.Namespace}
		if len(a.Labels) > 0 {
			md["labels"] = a.Labels
		}
		if len(a.Annotations) > 0 {
			md["annotations"] = a.Annotations
		}
		if len(a.Finalizers) > 0 {
			md["finalizers"] = a.Finalizers
		}
		spec, err := yaml.Marshal(a.Spec)
		if err != nil {
			t.Fatal(err)
		}
		var s map[string]any
		if err := yaml.Unmarshal(spec, &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, map[string]any{"metadata": md, "spec": s})
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i]["metadata"].(map[string]any)["name"].(string) < out[j]["metadata"].(map[string]any)["name"].(string)
	})
	return out
}

// TestArgoCDExpansion: Argo CD's expansion of every case equals the
// committed testdata/<case>.applications.yaml, which the main module's
// appset tests compare routeguard's expansion with.
func TestArgoCDExpansion(t *testing.T) {
	log.SetOutput(os.Stderr)
	log.SetLevel(log.WarnLevel)
	files, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
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
			var c Case
			if err := yaml.UnmarshalStrict(raw, &c); err != nil {
				t.Fatal(err)
			}
			apps := normalized(t, expand(t, &c))
			if len(apps) == 0 {
				t.Fatal("Argo CD generated no Application")
			}
			got, err := yaml.Marshal(apps)
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(f, ".yaml") + ".applications.yaml"
			header := "# Argo CD v3.5.7's expansion of " + filepath.Base(f) + " (compat/argocd/appset: go test ./appset -update)\n"
			if *update {
				if err := os.WriteFile(golden, append([]byte(header), got...), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./appset -update)", err)
			}
			if string(want) != header+string(got) {
				t.Errorf("Argo CD's expansion differs from %s:\n%s", golden, got)
			}
		})
	}
	if n < 5 {
		t.Fatalf("only %d cases", n)
	}
}
