package cmpcompat

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
)

// exampleArgoCDApps are every Application `routeguard argocd build
// examples/argocd` renders: the app-of-apps root (a recursive directory
// source), the plugin Applications of examples/argocd/apps, and the
// Applications the teams ApplicationSet's git directory generator makes
// (one per examples/teams/* directory: plain manifests, Kustomize),
// written here as its template makes them.
func exampleArgoCDApps(t *testing.T) map[string]app {
	t.Helper()
	out := map[string]app{}
	for _, a := range exampleApplications(t) {
		src := a.Spec.Source
		out["argocd/"+a.Name] = app{name: a.Name, namespace: a.Spec.Destination.Namespace, path: src.Path, source: src}
	}
	data, err := os.ReadFile(filepath.Join(repoRoot, "examples/argocd/root-app.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var root v1alpha1.Application
	if err := yaml.UnmarshalStrict(data, &root); err != nil {
		t.Fatalf("root-app.yaml: %v", err)
	}
	out["argocd/root"] = app{name: root.Name, namespace: root.Spec.Destination.Namespace, path: root.Spec.Source.Path, source: root.Spec.Source}
	dirs, err := filepath.Glob(filepath.Join(repoRoot, "examples/teams/*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no team directories: %v", err)
	}
	for _, d := range dirs {
		team := filepath.Base(d)
		path := "examples/teams/" + team
		out["argocd/team-"+team] = app{name: "team-" + team, namespace: "team-" + team, path: path,
			source: &v1alpha1.ApplicationSource{RepoURL: repoURL, Path: path, TargetRevision: "main"}}
	}
	return out
}

// TestArgoCDBuildMatchesRepoServer renders the example repository with
// `routeguard argocd build` and every one of its Applications with the
// repo-server's own GenerateManifests (Argo CD's directory, Kustomize and
// Helm code in process; routeguard's plugin through the real
// argocd-cmp-server), and compares them object by object: the same
// objects, equal field by field.
//
// Normalized: the order of the objects only (compared as a set keyed by
// apiVersion, kind, namespace and name; Argo CD's sync orders them itself
// by phase, wave and kind). Both sides are JSON objects decoded the same
// way; nothing else is changed.
func TestArgoCDBuildMatchesRepoServer(t *testing.T) {
	out, err := runRouteguard("argocd", "build", filepath.Join(repoRoot, "examples/argocd"), "--repo-root", repoRoot,
		"--revision", revision, "--kube-version", "1.31.0", "--api-versions", strings.Join(apiVersions, ","), "-o", "json")
	if err != nil {
		t.Fatalf("routeguard argocd build: %v", err)
	}
	var built []struct {
		Application string            `json:"application"`
		Objects     []json.RawMessage `json:"objects"`
	}
	if err := json.Unmarshal([]byte(out), &built); err != nil {
		t.Fatalf("argocd build -o json: %v", err)
	}
	apps := exampleArgoCDApps(t)
	var keys []string
	for _, b := range built {
		keys = append(keys, b.Application)
	}
	want := make([]string, 0, len(apps))
	for k := range apps {
		want = append(want, k)
	}
	slices.Sort(want)
	slices.Sort(keys)
	if !slices.Equal(keys, want) {
		t.Fatalf("argocd build rendered Applications %v, want %v", keys, want)
	}
	for _, b := range built {
		t.Run(strings.TrimPrefix(b.Application, "argocd/"), func(t *testing.T) {
			a := apps[b.Application]
			resp, err := generate(t, a)
			if err != nil {
				t.Fatalf("GenerateManifests: %v", err)
			}
			theirs := objectsOf(t, resp.Manifests)
			var ours []map[string]any
			for _, raw := range b.Objects {
				var o map[string]any
				if err := json.Unmarshal(raw, &o); err != nil {
					t.Fatal(err)
				}
				ours = append(ours, o)
			}
			if len(theirs) == 0 {
				t.Fatalf("Argo CD rendered no objects for %s", b.Application)
			}
			compareObjects(t, keyed(t, ours), keyed(t, theirs))
		})
	}
}

// keyed indexes objects by "apiVersion kind namespace/name".
func keyed(t *testing.T, objs []map[string]any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, o := range objs {
		md, _ := o["metadata"].(map[string]any)
		k := fmt.Sprintf("%v %v %v/%v", o["apiVersion"], o["kind"], md["namespace"], md["name"])
		if _, dup := out[k]; dup {
			t.Errorf("%s rendered twice", k)
		}
		out[k] = o
	}
	return out
}

func compareObjects(t *testing.T, ours, theirs map[string]map[string]any) {
	t.Helper()
	for k, o := range theirs {
		mine, ok := ours[k]
		if !ok {
			t.Errorf("%s: Argo CD renders it, routeguard does not", k)
			continue
		}
		if !reflect.DeepEqual(mine, o) {
			a, _ := yaml.Marshal(mine)
			b, _ := yaml.Marshal(o)
			t.Errorf("%s differs:\nrouteguard:\n%s\nArgo CD:\n%s", k, a, b)
		}
	}
	for k := range ours {
		if _, ok := theirs[k]; !ok {
			t.Errorf("%s: routeguard renders it, Argo CD does not", k)
		}
	}
}
