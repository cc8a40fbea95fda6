package action

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
)

// TestConcurrentRuns takes 50 different repositories through the whole
// front door at once (action.Analyze: render, config, context paths,
// analysis; run with -race by `make test`) and compares each outcome with
// the repository's serial run.
func TestConcurrentRuns(t *testing.T) {
	const n = 50
	repos := make([]string, n)
	for i := range repos {
		ns := fmt.Sprintf("team-%02d", i)
		files := map[string]string{
			".routeguard.yaml": "contextPaths: [backend]\n",
			"app/route.yaml": fmt.Sprintf("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: web, namespace: %s}\n"+
				"spec:\n  rules:\n    - backendRefs:\n        - {name: web, port: 80}\n        - {name: gone-%d, port: 80}\n", ns, i),
			"backend/svc.yaml": fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: %s}\nspec:\n  ports: [{port: 80}]\n", ns),
		}
		repos[i] = writeTree(t, files)
	}
	run := func(repo string) ([]string, error) {
		a := &Analyze{Render: RenderOptions{RepoRoot: repo, MaxFileMiB: 1}, Output: "json"}
		out, err := a.Run(context.Background(), Env{Getenv: func(string) string { return "" }}, []string{repo + "/app"})
		if err != nil {
			return nil, err
		}
		return codes(out.Findings), nil
	}
	serial := make([][]string, n)
	for i, repo := range repos {
		var err error
		if serial[i], err = run(repo); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("RG1101 HTTPRoute team-%02d/web", i)
		if !slices.Contains(serial[i], want) {
			t.Fatalf("serial run of repo %d: %v, want %s", i, serial[i], want)
		}
	}
	got := make([][]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, repo := range repos {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = run(repo)
		}()
	}
	wg.Wait()
	for i := range repos {
		if errs[i] != nil || !reflect.DeepEqual(got[i], serial[i]) {
			t.Errorf("repo %d: concurrent %v (%v), serial %v", i, got[i], errs[i], serial[i])
		}
	}
}
