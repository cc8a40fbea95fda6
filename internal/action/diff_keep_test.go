package action

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/routeguard/routeguard/internal/pipeline"
)

// One render giving both outcomes (appKeep, routediff.Options.AnalyzeKeep)
// gives what two do: the outcome without analysis and the analyzed one,
// carried as a shard carries them, byte for byte, over the bundled example
// apps (Kustomize, Helm, plain YAML; broken ones with findings), a
// repository configuration with transforms, and Kustomize helmCharts.
func TestAppKeepIsTwoRenders(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	type app struct{ root, path string }
	var apps []app
	for _, dir := range []string{"examples/apps", "examples/broken"} {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() {
				apps = append(apps, app{root, filepath.Join(root, dir, e.Name())})
			}
		}
	}
	repo := writeTree(t, map[string]string{
		".routeguard.yaml":            "transforms: {syncWaves: true}\n",
		"shop/kustomization.yaml":     "resources: [route.yaml]\nhelmCharts:\n  - name: web\n    releaseName: web\n",
		"shop/route.yaml":             route,
		"shop/charts/web/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"shop/charts/web/values.yaml": "{}\n",
		"shop/charts/web/templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n" +
			"spec:\n  ports:\n    - port: 80\n",
	})
	apps = append(apps, app{repo, filepath.Join(repo, "shop")})
	if len(apps) < 10 {
		t.Fatalf("only %d apps found", len(apps))
	}
	env := Env{Getenv: func(string) string { return "" }}
	carried := func(o *pipeline.Outcome, root string) string {
		t.Helper()
		c, err := o.Carry(root)
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	findings := 0
	for _, ap := range apps {
		a := &Diff{Render: RenderOptions{MaxFileMiB: 8}}
		ctx := context.Background()
		prepared, analyzed, err := a.appKeep(ctx, env, ap.path, ap.root, nil)
		rendered, rerr := a.app(ctx, env, ap.path, ap.root, false, nil)
		full, ferr := a.app(ctx, env, ap.path, ap.root, true, nil)
		if (err == nil) != (rerr == nil) || (err == nil) != (ferr == nil) {
			t.Errorf("%s: errors %v / %v, %v", ap.path, err, rerr, ferr)
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", ap.path, err)
			continue
		}
		if got, want := carried(prepared, ap.root), carried(rendered, ap.root); got != want {
			t.Errorf("%s: the outcome before analysis differs:\n%s\nrendered alone:\n%s", ap.path, got, want)
		}
		if got, want := carried(analyzed, ap.root), carried(full, ap.root); got != want {
			t.Errorf("%s: the analyzed outcome differs:\n%s\nanalyzed alone:\n%s", ap.path, got, want)
		}
		if len(prepared.Findings) != 0 {
			t.Errorf("%s: the outcome before analysis has findings: %v", ap.path, prepared.Findings)
		}
		findings += len(analyzed.Findings)
	}
	if findings == 0 {
		t.Error("no app had a finding: the analyzed outcomes are not compared on any")
	}
}
