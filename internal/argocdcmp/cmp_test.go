package argocdcmp

import (
	"reflect"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

func TestRepoRoot(t *testing.T) {
	tests := []struct {
		name, cwd, sourcePath, want string
	}{
		{"whole repository", "/tmp/_cmp_server/abc/apps/backend", "apps/backend", "/tmp/_cmp_server/abc"},
		{"trailing slash and dot", "/tmp/w/apps/backend", "./apps/backend/", "/tmp/w"},
		{"app at the root", "/tmp/w", ".", "/tmp/w"},
		{"no source path", "/tmp/w/x", "", "/tmp/w/x"},
		{"generate-paths root: only a tail is unpacked", "/tmp/w/backend", "examples/apps/backend", "/tmp/w"},
		{"no common tail", "/tmp/w/other", "apps/backend", "/tmp/w/other"},
		{"partial name is not a tail", "/tmp/w/my-backend", "apps/backend", "/tmp/w/my-backend"},
		{"escaping path ignored", "/tmp/w/a", "../a", "/tmp/w/a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RepoRoot(tt.cwd, tt.sourcePath); got != tt.want {
				t.Errorf("RepoRoot(%q, %q) = %q, want %q", tt.cwd, tt.sourcePath, got, tt.want)
			}
		})
	}
}

func envOf(vars map[string]string) (func(string) string, func() []string) {
	return func(k string) string { return vars[k] }, func() []string {
		var out []string
		for k, v := range vars {
			out = append(out, k+"="+v)
		}
		return out
	}
}

func TestFromEnvAndSettings(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    Settings
		wantErr string
	}{
		{name: "defaults", env: map[string]string{}, want: Settings{Report: "none"}},
		{name: "plugin env", env: map[string]string{"ARGOCD_ENV_FAIL_ON": "warning", "ARGOCD_ENV_REPORT": "configmap", "ARGOCD_ENV_ALLOW_NETWORK": "true"},
			want: Settings{FailOn: analysis.FailOnWarning, Report: "configmap", AllowNetwork: true}},
		{name: "parameters win over plugin env", env: map[string]string{
			"ARGOCD_ENV_FAIL_ON":    "warning",
			"ARGOCD_APP_PARAMETERS": `[{"name":"fail-on","string":"never"},{"name":"values-files","array":["values-prod.yaml"]},{"name":"helm-parameters","map":{"image.tag":"v2"}},{"name":"weights","map":{"reviews":"blue 90, green 10"}},{"name":"substitution-variables","map":{"cluster":"prod"}}]`,
			// PARAM_ variables are ignored when the JSON is there.
			"PARAM_FAIL_ON": "error",
		}, want: Settings{FailOn: analysis.FailOnNever, Report: "none", ValuesFiles: []string{"values-prod.yaml"}, HelmParameters: map[string]string{"image.tag": "v2"},
			Weights: map[string]map[string]int{"reviews": {"blue": 90, "green": 10}}, Variables: map[string]string{"cluster": "prod"}}},
		{name: "PARAM_ fallback for strings and arrays", env: map[string]string{
			"PARAM_FAIL_ON": "warning", "PARAM_VALUES_FILES_0": "a.yaml", "PARAM_VALUES_FILES_1": "b.yaml", "PARAM_RELEASE_NAME": "shop",
		}, want: Settings{FailOn: analysis.FailOnWarning, Report: "none", ValuesFiles: []string{"a.yaml", "b.yaml"}, Release: "shop"}},
		{name: "null parameters", env: map[string]string{"ARGOCD_APP_PARAMETERS": "null"}, want: Settings{Report: "none"}},
		{name: "sidecar allows network", env: map[string]string{"ROUTEGUARD_ALLOW_NETWORK": "1"}, want: Settings{Report: "none", AllowNetwork: true}},
		{name: "unknown parameter", env: map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"failon","string":"x"}]`}, wantErr: `parameter "failon" is not one routeguard reads`},
		{name: "wrong collection", env: map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"values-files","string":"x.yaml"}]`}, wantErr: `parameter "values-files" must be a array`},
		{name: "bad JSON", env: map[string]string{"ARGOCD_APP_PARAMETERS": `{`}, wantErr: "ARGOCD_APP_PARAMETERS is not the JSON list"},
		{name: "bad fail-on", env: map[string]string{"ARGOCD_ENV_FAIL_ON": "sometimes"}, wantErr: `must be error, warning or never, got "sometimes"`},
		{name: "bad report", env: map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"report","string":"slack"}]`}, wantErr: "must be none or configmap"},
		{name: "unknown plugin env", env: map[string]string{"ARGOCD_ENV_FAILON": "error"}, wantErr: "plugin env FAILON (ARGOCD_ENV_FAILON) is not one routeguard reads"},
		// Argo CD 3.x passes empty plugin env entries (2.x dropped them):
		// an empty unknown one is no setting, and an empty known one is unset.
		{name: "empty unknown plugin env", env: map[string]string{"ARGOCD_ENV_TEAM": "", "ARGOCD_ENV_FAIL_ON": "warning"}, want: Settings{FailOn: analysis.FailOnWarning, Report: "none"}},
		{name: "empty known plugin env", env: map[string]string{"ARGOCD_ENV_FAIL_ON": "", "ARGOCD_ENV_REPORT": "", "ARGOCD_ENV_ALLOW_NETWORK": ""}, want: Settings{Report: "none"}},
		{name: "blank is not empty", env: map[string]string{"ARGOCD_ENV_TEAM": " "}, wantErr: "plugin env TEAM (ARGOCD_ENV_TEAM) is not one routeguard reads"},
		{name: "bad allow network", env: map[string]string{"ARGOCD_ENV_ALLOW_NETWORK": "yes please"}, wantErr: "plugin env ALLOW_NETWORK must be true or false"},
		{name: "weights not adding up", env: map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"weights","map":{"reviews":"blue 90, green 20"}}]`}, wantErr: "add up to 110, not 100"},
		{name: "bad variable name", env: map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"substitution-variables","map":{"1x":"v"}}]`}, wantErr: `"1x" is not a valid variable name`},
		{name: "duplicate parameter", env: map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"report","string":"none"},{"name":"report","string":"configmap"}]`}, wantErr: "given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv, environ := envOf(tt.env)
			b, err := FromEnv(getenv, environ)
			var s Settings
			if err == nil {
				s, err = b.Settings()
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s, tt.want) {
				t.Errorf("settings = %+v\nwant       %+v", s, tt.want)
			}
		})
	}
}

func TestFromEnvBuild(t *testing.T) {
	getenv, environ := envOf(map[string]string{
		"ARGOCD_APP_NAME": "shop", "ARGOCD_APP_NAMESPACE": "shop-prod", "ARGOCD_APP_SOURCE_PATH": "apps/shop",
		"KUBE_VERSION": "1.31.0", "KUBE_API_VERSIONS": "v1,apps/v1, gateway.networking.k8s.io/v1",
		"ARGOCD_ENV_FAIL_ON": "error", "GIT_PASSWORD": "hunter2",
	})
	b, err := FromEnv(getenv, environ)
	if err != nil {
		t.Fatal(err)
	}
	if b.AppName != "shop" || b.AppNamespace != "shop-prod" || b.SourcePath != "apps/shop" || b.KubeVersion != "1.31.0" {
		t.Errorf("build = %+v", b)
	}
	if want := []string{"v1", "apps/v1", "gateway.networking.k8s.io/v1"}; !reflect.DeepEqual(b.KubeAPIVersions, want) {
		t.Errorf("api versions = %q, want %q", b.KubeAPIVersions, want)
	}
	if !reflect.DeepEqual(b.PluginEnv, map[string]string{"FAIL_ON": "error"}) {
		t.Errorf("plugin env = %v: only ARGOCD_ENV_ variables belong there", b.PluginEnv)
	}
}

func finding(code string, sev analysis.Severity, file string, line int, name string) analysis.Finding {
	return analysis.Finding{Code: code, Severity: sev, Message: "something\nis wrong", Source: manifest.Source{File: file, Line: line},
		Object: analysis.ObjectRef{APIVersion: "gateway.networking.k8s.io/v1", Kind: "HTTPRoute", Namespace: "shop", Name: name}}
}

func TestWriteReport(t *testing.T) {
	fs := []analysis.Finding{
		finding("RG1002", analysis.SeverityWarning, "apps/a.yaml", 3, "w"),
		finding("RG0001", analysis.SeverityInfo, "apps/a.yaml", 4, "i"),
		finding("RG1101", analysis.SeverityError, "apps/b.yaml", 9, "e1"),
		finding("RG1101", analysis.SeverityError, "apps/c.yaml", 0, "e2"),
	}
	var b strings.Builder
	if err := WriteReport(&b, fs, "apps", "kustomize", 2); err != nil {
		t.Fatal(err)
	}
	want := "routeguard: 2 errors, 1 warnings in apps (kustomize)\n" +
		"apps/b.yaml:9: RG1101 error HTTPRoute shop/e1: something is wrong\n" +
		"apps/c.yaml: RG1101 error HTTPRoute shop/e2: something is wrong\n" +
		"... and 1 more\n"
	if b.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestReportObject(t *testing.T) {
	b := &Build{AppName: "Shop_Prod", AppNamespace: "shop"}
	o, err := ReportObject(b, "apps/shop", "helm", []analysis.Finding{finding("RG1002", analysis.SeverityWarning, "apps/a.yaml", 3, "w")})
	if err != nil {
		t.Fatal(err)
	}
	if o.Kind != "ConfigMap" || o.Name != "routeguard-report-shop-prod" || o.Namespace != "shop" {
		t.Errorf("report object %s", o)
	}
	if got := o.Annotations()[AnnotationWarnings]; got != "1" {
		t.Errorf("warnings annotation = %q", got)
	}
	data := o.Body["data"].(map[string]any)
	if data["findings"] != "apps/a.yaml:3: RG1002 warning HTTPRoute shop/w: something is wrong\n" {
		t.Errorf("findings = %q", data["findings"])
	}
	var many []analysis.Finding
	for i := 0; i < ReportObjectLimit+5; i++ {
		many = append(many, finding("RG1002", analysis.SeverityWarning, "apps/a.yaml", i+1, "w"))
	}
	big, err := ReportObject(b, "apps/shop", "helm", many)
	if err != nil {
		t.Fatal(err)
	}
	text := big.Body["data"].(map[string]any)["findings"].(string)
	if n := strings.Count(text, "\n"); n != ReportObjectLimit+1 || !strings.HasSuffix(text, "... and 5 more\n") {
		t.Errorf("report object of %d findings has %d lines, ending %q", len(many), n, text[len(text)-30:])
	}
	if ReportName("") != "routeguard-report" || len(ReportName(strings.Repeat("a", 300))) > 253 {
		t.Error("ReportName must fall back to the prefix and stay within 253 characters")
	}
}

func TestCurrentWeights(t *testing.T) {
	objs, err := manifest.Decode("routes.yaml", []byte(`
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: reviews, namespace: shop}
spec:
  hosts: [reviews]
  http:
    - route:
        - destination: {host: reviews.shop.svc.cluster.local, subset: blue}
          weight: 70
        - destination: {host: reviews.shop.svc.cluster.local, subset: green}
          weight: 30
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: shop}
spec:
  rules:
    - backendRefs:
        - {name: cart-v1, port: 80, weight: 3}
        - {name: cart-v2, port: 80}
    - backendRefs:
        - {name: single, port: 80}
    - backendRefs:
        - {name: alpha, port: 80}
        - {name: beta, port: 80}
`))
	if err != nil {
		t.Fatal(err)
	}
	set := manifest.NewSet()
	if err := set.AddAll(objs); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"reviews": "blue 70, green 30", "cart": "v1 3, v2 1"}
	if got := CurrentWeights(set); !reflect.DeepEqual(got, want) {
		t.Errorf("CurrentWeights = %v, want %v", got, want)
	}
}

func TestAnnounce(t *testing.T) {
	got := Announce(AnnounceInput{Helm: true, FailOn: "warning", Release: "shop", ValuesFiles: []string{"values-prod.yaml"},
		HelmValues: map[string]string{"replicas": "2"}, Weights: map[string]string{"reviews": "blue 90, green 10"}})
	var names []string
	for _, a := range got {
		names = append(names, a.Name+":"+a.CollectionType)
	}
	want := "fail-on:string report:string values-files:array helm-parameters:map release-name:string weights:map"
	if strings.Join(names, " ") != want {
		t.Errorf("announced %s\nwant      %s", strings.Join(names, " "), want)
	}
	if got[0].String != "warning" || got[3].Map["replicas"] != "2" || got[5].Map["reviews"] != "blue 90, green 10" {
		t.Errorf("defaults not announced: %+v", got)
	}
	if !strings.Contains(got[2].Tooltip, "values-prod.yaml") {
		t.Errorf("values-files tooltip does not list the chart's values files: %q", got[2].Tooltip)
	}
	plain := Announce(AnnounceInput{FailOn: "error"})
	if len(plain) != 2 {
		t.Errorf("a plain app without variables or weights gets %d parameters, want fail-on and report", len(plain))
	}
}
