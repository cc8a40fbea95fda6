package monorepo

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestNewIsPure(t *testing.T) {
	if !reflect.DeepEqual(New(30), New(30)) {
		t.Fatal("New is not a pure function of n")
	}
	r := New(30)
	if got := len(r.Apps()); got != 30 {
		t.Fatalf("%d apps, want 30", got)
	}
	if !strings.Contains(r["argocd/apps/app-0001.yaml"], "manifest-generate-paths") {
		t.Error("app-0001 (a Kustomize app) declares no manifest-generate-paths")
	}
}

func TestEditsCoverEveryKind(t *testing.T) {
	r := New(30)
	rng := rand.New(rand.NewPCG(1, 2))
	next := 30
	kinds := map[string]bool{}
	for range 200 {
		what := r.Edit(rng, &next)
		kinds[strings.Fields(what)[0]] = true
	}
	for _, k := range []string{"add", "remove", "base-", "chart", "gateway", "readme", "component", "destination", "weights"} {
		found := false
		for w := range kinds {
			if strings.HasPrefix(w, k) {
				found = true
			}
		}
		if !found {
			t.Errorf("no edit of kind %q in 200 (got %v)", k, kinds)
		}
	}
}

func TestHistory(t *testing.T) {
	dir := t.TempDir()
	commits, err := History(dir, 12, 5, 7)
	if err != nil {
		t.Fatal(err)
	}
	again, err := History(t.TempDir(), 12, 5, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(commits) != 6 || !reflect.DeepEqual(commits, again) {
		t.Fatalf("histories differ or are not 6 commits: %v / %v", commits, again)
	}
}
