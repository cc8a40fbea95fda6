package action

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/argocd/appset"
	"github.com/routeguard/routeguard/internal/pipeline"
)

func envOf(vars map[string]string) Env {
	return Env{Getenv: func(k string) string { return vars[k] }}
}

// Render options take what the flags leave unset from the Argo CD build
// environment; flags win.
func TestRenderOptionsDefaultsFromEnv(t *testing.T) {
	env := envOf(map[string]string{"ARGOCD_APP_NAME": "shop", "ARGOCD_APP_NAMESPACE": "shop-prod",
		"KUBE_VERSION": "1.31.0", "KUBE_API_VERSIONS": "v1,apps/v1"})
	got, err := RenderOptions{MaxFileMiB: 1}.options(env, "app")
	if err != nil {
		t.Fatal(err)
	}
	if got.Helm.Release != "shop" || got.Helm.Namespace != "shop-prod" || got.Helm.KubeVersion != "1.31.0" ||
		!reflect.DeepEqual(got.Helm.APIVersions, []string{"v1", "apps/v1"}) || got.MaxFileBytes != 1<<20 || !got.Helm.IncludeCRDs {
		t.Errorf("from the environment: %+v", got.Helm)
	}
	got, err = RenderOptions{MaxFileMiB: 1, Release: "r", Namespace: "n", KubeVersion: "1.30.0", APIVersions: []string{"x/v1"}}.options(env, "app")
	if err != nil {
		t.Fatal(err)
	}
	if got.Helm.Release != "r" || got.Helm.Namespace != "n" || got.Helm.KubeVersion != "1.30.0" || !reflect.DeepEqual(got.Helm.APIVersions, []string{"x/v1"}) {
		t.Errorf("flags must win: %+v", got.Helm)
	}
	if _, err := (RenderOptions{}).options(env, "app"); err == nil || !strings.Contains(err.Error(), "--max-file-size must be positive") {
		t.Errorf("max file size 0: %v", err)
	}
}

func TestParseClusters(t *testing.T) {
	got, err := parseClusters([]string{"prod=https://prod:6443,env=prod,annotation:team=shop", "dev=https://dev"})
	if err != nil {
		t.Fatal(err)
	}
	want := []appset.Cluster{
		{Name: "prod", Server: "https://prod:6443", Labels: map[string]string{"env": "prod"}, Annotations: map[string]string{"team": "shop"}},
		{Name: "dev", Server: "https://dev"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for _, bad := range []string{"prod", "=https://x", "prod=", "prod=https://x,nolabel"} {
		if _, err := parseClusters([]string{bad}); err == nil || !strings.Contains(err.Error(), "--cluster") {
			t.Errorf("%q: %v, want an error naming --cluster", bad, err)
		}
	}
}

// Variables: files in order (a ConfigMap's data as is), then --var, which
// wins.
func TestParseVars(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	os.WriteFile(a, []byte("kind: ConfigMap\ndata:\n  x: from-a\n  w: from-a\n"), 0o644)
	os.WriteFile(b, []byte("w: 2\nz: true\nempty:\n"), 0o644)
	got, err := parseVars([]string{a, b}, []string{"z=flag"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"x": "from-a", "w": "2", "z": "flag", "empty": ""}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, err := parseVars(nil, []string{"novalue"}); err == nil || !strings.Contains(err.Error(), `--var "novalue"`) {
		t.Errorf("bad --var: %v", err)
	}
}

// The verdict over several outcomes fails when any of them does.
func TestVerdict(t *testing.T) {
	var v Verdict
	v.add(&pipeline.Outcome{Findings: []analysis.Finding{{Code: "RG1101"}}, FailOn: analysis.FailOnError})
	v.add(&pipeline.Outcome{Failed: true, FailOn: analysis.FailOnError})
	v.add(&pipeline.Outcome{PluginFailed: true, FailOn: analysis.FailOnWarning})
	if len(v.Findings) != 1 || !v.Failed || !v.PluginFailed || v.FailOn != analysis.FailOnWarning {
		t.Errorf("%+v", v)
	}
	if v := buildVerdict([]analysis.Finding{{Code: analysis.CodeNotBuilt}}); v.Failed || v.Findings[0].Severity != analysis.SeverityInfo {
		t.Errorf("an info of the build fails nothing: %+v", v)
	}
	if v := buildVerdict([]analysis.Finding{{Code: analysis.CodeFluxBuildFailed}}); !v.Failed {
		t.Errorf("a failed build is an error: %+v", v)
	}
}
