package argocd

import (
	"slices"
	"sync"
	"testing"
)

// TestProgress: Options.Progress hears of every Application rendered,
// once, with the result the build returns (its status).
func TestProgress(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"argocd/teams.yaml": appSet("teams", `
  goTemplate: true
  generators:
    - git:
        repoURL: `+repoURL+`
        revision: main
        directories:
          - path: apps/*
  template:
    metadata:
      name: 'team-{{ .path.basename }}'
    spec:
      project: default
      source:
        repoURL: `+repoURL+`
        path: '{{ .path.path }}'
      destination:
        server: https://kubernetes.default.svc
        namespace: '{{ .path.basename }}'
`),
		"apps/cart/cm.yaml":   configMap("cart"),
		"apps/search/cm.yaml": configMap("search"),
		"apps/empty/x.txt":    "nothing to render\n",
	})
	var mu sync.Mutex
	heard := map[string]string{}
	res := build(t, root, Options{Progress: func(a *AppResult) {
		mu.Lock()
		defer mu.Unlock()
		if _, twice := heard[a.App.Key()]; twice {
			t.Errorf("%s heard twice", a.App.Key())
		}
		heard[a.App.Key()] = a.Status()
	}}, "argocd")
	if len(res.Apps) != 3 || len(heard) != len(res.Apps) {
		t.Fatalf("built %v, heard %v", appKeys(res), heard)
	}
	for _, a := range res.Apps {
		if heard[a.App.Key()] != a.Status() {
			t.Errorf("%s: heard %q, built %q", a.App.Key(), heard[a.App.Key()], a.Status())
		}
	}
	keys := make([]string, 0, len(heard))
	for k := range heard {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	equal(t, "heard", keys, []string{"argocd/team-cart", "argocd/team-empty", "argocd/team-search"})
}
