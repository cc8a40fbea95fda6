package cmpcompat

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
)

// exampleApplications reads the Argo CD Applications of examples/argocd.
func exampleApplications(t *testing.T) []v1alpha1.Application {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "examples/argocd/apps/*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Applications under examples/argocd/apps: %v", err)
	}
	var apps []v1alpha1.Application
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var a v1alpha1.Application
		if err := yaml.UnmarshalStrict(data, &a); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		apps = append(apps, a)
	}
	return apps
}

// TestExampleApplications generates every example Application through the
// repo-server's code and the real argocd-cmp-server with the shipped
// plugin.yaml, and compares what comes back with `routeguard render` of the
// same app.
func TestExampleApplications(t *testing.T) {
	for _, a := range exampleApplications(t) {
		t.Run(a.Name, func(t *testing.T) {
			src := a.Spec.Source
			if src.Plugin == nil || src.Plugin.Name != pluginShipped {
				t.Fatalf("Application %s does not name the %s plugin", a.Name, pluginShipped)
			}
			resp, err := generate(t, app{name: a.Name, namespace: a.Spec.Destination.Namespace, path: src.Path, source: src})
			if err != nil {
				t.Fatalf("GenerateManifests: %v", err)
			}
			if resp.SourceType != string(v1alpha1.ApplicationSourceTypePlugin) {
				t.Errorf("source type %q, want Plugin", resp.SourceType)
			}
			release := a.Name // routeguard's default, as Argo CD's for Helm sources
			var args []string
			for _, p := range src.Plugin.Parameters {
				switch p.Name {
				case "values-files":
					for _, f := range p.Array {
						args = append(args, "-f", f)
					}
				case "release-name":
					if p.String_ != nil {
						release = *p.String_
					}
				}
			}
			args = append(args, "--namespace", a.Spec.Destination.Namespace, "--release", release)
			got, want := objectsOf(t, resp.Manifests), renderObjects(t, src.Path, args...)
			if len(want) == 0 || !reflect.DeepEqual(got, want) {
				t.Errorf("manifests from argocd-cmp-server:\n%v\nrouteguard render:\n%v", names(got), names(want))
			}
		})
	}
}

// TestOtherExampleApps covers the example apps no Application deploys
// (other overlays and values files, Flux apps) with a named plugin.
func TestOtherExampleApps(t *testing.T) {
	cases := []struct {
		name, ns, path string
		params         v1alpha1.ApplicationSourcePluginParameters
		renderArgs     []string
	}{
		{"frontend-dev", "shop-dev", "examples/apps/frontend/overlays/dev", nil, nil},
		{"frontend-stage", "shop-stage", "examples/apps/frontend/overlays/stage", nil, nil},
		{"backend-dev", "shop-dev", "examples/apps/backend", arrayParam("values-files", "values-dev.yaml"), []string{"-f", "values-dev.yaml"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := generate(t, app{name: c.name, namespace: c.ns, path: c.path,
				plugin: &v1alpha1.ApplicationSourcePlugin{Name: pluginShipped, Parameters: c.params}})
			if err != nil {
				t.Fatalf("GenerateManifests: %v", err)
			}
			got := objectsOf(t, resp.Manifests)
			want := renderObjects(t, c.path, append([]string{"--namespace", c.ns, "--release", c.name}, c.renderArgs...)...)
			if len(want) == 0 || !reflect.DeepEqual(got, want) {
				t.Errorf("manifests from argocd-cmp-server:\n%v\nrouteguard render:\n%v", names(got), names(want))
			}
		})
	}
}

func arrayParam(name string, values ...string) v1alpha1.ApplicationSourcePluginParameters {
	return v1alpha1.ApplicationSourcePluginParameters{{Name: name, OptionalArray: &v1alpha1.OptionalArray{Array: values}}}
}

func stringParam(name, value string) v1alpha1.ApplicationSourcePluginParameter {
	return v1alpha1.ApplicationSourcePluginParameter{Name: name, String_: &value}
}

func mapParam(name string, m map[string]string) v1alpha1.ApplicationSourcePluginParameter {
	return v1alpha1.ApplicationSourcePluginParameter{Name: name, OptionalMap: &v1alpha1.OptionalMap{Map: m}}
}

// TestBrokenApps: the error Argo CD records carries routeguard's report.
func TestBrokenApps(t *testing.T) {
	cases := []struct {
		path, summary, finding string
	}{
		{"examples/broken/dangling-service", "routeguard: 1 errors, 0 warnings in examples/broken/dangling-service (directory)",
			"examples/broken/dangling-service/app.yaml:33: RG1101 error HTTPRoute checkout/cart: "},
		{"examples/broken/missing-subset", "routeguard: ", "RG3001 error VirtualService payments/payments: "},
		{"examples/broken/missing-listener", "routeguard: ", "RG1002 error HTTPRoute search/search: "},
		{"examples/broken/duplicate-ingress", "routeguard: ", "RG2003 error Ingress blog/blog-new: "},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			resp, err := generate(t, app{name: filepath.Base(c.path), namespace: "default", path: c.path,
				plugin: &v1alpha1.ApplicationSourcePlugin{Name: pluginShipped}})
			if err == nil {
				t.Fatalf("generation succeeded with %d manifests; want routeguard's report", len(resp.Manifests))
			}
			msg := err.Error()
			if !strings.Contains(msg, "`routeguard cmp generate` failed exit status 1: "+c.summary) || !strings.Contains(msg, c.finding) {
				t.Errorf("error %q\nwant the summary %q and the finding %q", msg, c.summary, c.finding)
			}
			if c.path == "examples/broken/dangling-service" {
				writeComparisonError(t, msg)
			}
		})
	}
}

// writeComparisonError keeps the observed error as the fixture the
// notification templates are tested with, wrapped as Argo CD's application
// controller wraps repo-server errors into the ComparisonError condition
// (controller/state.go: "failed to generate manifest for source %d of %d:
// %w", then "Failed to load target state: %s"; the gRPC hop in between adds
// "rpc error: code = Unknown desc = ").
func writeComparisonError(t *testing.T, observed string) {
	t.Helper()
	full := "Failed to load target state: failed to generate manifest for source 1 of 1: rpc error: code = Unknown desc = " + observed + "\n"
	path := filepath.Join("testdata", "comparison-error.txt")
	old, _ := os.ReadFile(path)
	if string(old) == full {
		return
	}
	if os.Getenv("ROUTEGUARD_UPDATE_FIXTURES") != "" {
		if err := os.WriteFile(path, []byte(full), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	// The shape (everything but the analyzer's wording after "Kind ns/name: ")
	// must match; a reworded message is only logged.
	shape := func(s string) string {
		if i := strings.Index(s, "HTTPRoute checkout/cart: "); i >= 0 {
			return s[:i]
		}
		return s
	}
	if shape(string(old)) != shape(full) {
		t.Errorf("%s no longer has the shape Argo CD shows; run with ROUTEGUARD_UPDATE_FIXTURES=1 to rewrite it. Observed:\n%s", path, full)
	} else {
		t.Logf("%s: the finding's message was reworded; ROUTEGUARD_UPDATE_FIXTURES=1 refreshes it. Observed:\n%s", path, full)
	}
}

// TestParametersChangeOutput: plugin parameters, set as the UI sets them,
// change what Argo CD receives.
func TestParametersChangeOutput(t *testing.T) {
	gen := func(path string, params ...v1alpha1.ApplicationSourcePluginParameter) ([]map[string]any, error) {
		resp, err := generate(t, app{name: "shop", namespace: "shop-prod", path: path,
			plugin: &v1alpha1.ApplicationSourcePlugin{Name: pluginShipped, Parameters: params}})
		if err != nil {
			return nil, err
		}
		return objectsOf(t, resp.Manifests), nil
	}
	replicas := func(objs []map[string]any) any {
		for _, o := range objs {
			if o["kind"] == "Deployment" {
				return o["spec"].(map[string]any)["replicas"]
			}
		}
		return nil
	}
	prod, err := gen("examples/apps/backend", arrayParam("values-files", "values-prod.yaml")[0])
	if err != nil {
		t.Fatal(err)
	}
	dev, err := gen("examples/apps/backend", arrayParam("values-files", "values-dev.yaml")[0])
	if err != nil {
		t.Fatal(err)
	}
	set, err := gen("examples/apps/backend", mapParam("helm-parameters", map[string]string{"replicaCount": "3"}))
	if err != nil {
		t.Fatal(err)
	}
	if replicas(prod) != float64(6) || replicas(dev) != float64(1) || replicas(set) != float64(3) {
		t.Errorf("replicas: prod %v, dev %v, --set %v; want 6, 1, 3", replicas(prod), replicas(dev), replicas(set))
	}

	weighted, err := gen("examples/apps/routing/istio", mapParam("weights", map[string]string{"reviews": "blue 40, green 60"}))
	if err != nil {
		t.Fatal(err)
	}
	var weights []any
	for _, o := range weighted {
		if o["kind"] == "VirtualService" {
			for _, r := range o["spec"].(map[string]any)["http"].([]any)[0].(map[string]any)["route"].([]any) {
				weights = append(weights, r.(map[string]any)["weight"])
			}
		}
	}
	if !reflect.DeepEqual(weights, []any{float64(40), float64(60)}) {
		t.Errorf("VirtualService weights %v, want [40 60]", weights)
	}

	// fail-on never lets a broken app through; the report object carries its finding.
	objs, err := gen("examples/broken/dangling-service", stringParam("fail-on", "never"), stringParam("report", "configmap"))
	if err != nil {
		t.Fatalf("fail-on never: %v", err)
	}
	last := objs[len(objs)-1]
	if last["kind"] != "ConfigMap" || !strings.Contains(last["data"].(map[string]any)["findings"].(string), "RG1101 error HTTPRoute checkout/cart") {
		t.Errorf("last object %v, want the report ConfigMap with the RG1101 finding", last)
	}

	// A bad parameter is refused with a message naming it.
	_, err = gen("examples/apps/routing/istio", mapParam("weights", map[string]string{"reviews": "blue 40, green 70"}))
	if err == nil || !strings.Contains(err.Error(), "add up to 110, not 100") {
		t.Errorf("weights adding up to 110: %v", err)
	}
}

// TestPluginEnv: spec.source.plugin.env reaches routeguard as ARGOCD_ENV_.
func TestPluginEnv(t *testing.T) {
	a := app{name: "dangling", namespace: "checkout", path: "examples/broken/dangling-service",
		plugin: &v1alpha1.ApplicationSourcePlugin{Name: pluginShipped, Env: v1alpha1.Env{{Name: "FAIL_ON", Value: "never"}}}}
	if _, err := generate(t, a); err != nil {
		t.Errorf("FAIL_ON=never in plugin env: %v", err)
	}
	a.plugin.Env = v1alpha1.Env{{Name: "FAILON", Value: "never"}}
	if _, err := generate(t, a); err == nil || !strings.Contains(err.Error(), "plugin env FAILON (ARGOCD_ENV_FAILON) is not one routeguard reads") {
		t.Errorf("misspelt plugin env: %v", err)
	}
	// Argo CD 3.x passes plugin env entries with an empty value (2.x dropped
	// them before starting the plugin): an empty one routeguard does not
	// read is no setting, and an empty FAIL_ON is the default.
	a.plugin.Env = v1alpha1.Env{{Name: "TEAM", Value: ""}, {Name: "FAIL_ON", Value: "never"}}
	if _, err := generate(t, a); err != nil {
		t.Errorf("empty unknown plugin env TEAM: %v", err)
	}
	a.plugin.Env = v1alpha1.Env{{Name: "FAIL_ON", Value: ""}}
	if _, err := generate(t, a); err == nil || !strings.Contains(err.Error(), "RG1101 error HTTPRoute checkout/cart") {
		t.Errorf("empty FAIL_ON must leave the default (fail on errors): %v", err)
	}
}

// TestEmptyPluginEnvReachesThePlugin shows the Argo CD 3.x behaviour the test
// above depends on: an empty plugin env entry reaches the plugin's
// environment as ARGOCD_ENV_<name>= (the probe counts it).
func TestEmptyPluginEnvReachesThePlugin(t *testing.T) {
	resp, err := generate(t, app{name: "probe", namespace: "x", path: "examples/apps/routing/gateways",
		plugin: &v1alpha1.ApplicationSourcePlugin{Name: pluginEnvProbe, Env: v1alpha1.Env{{Name: "TEAM", Value: ""}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := objectsOf(t, resp.Manifests)[0]["data"].(map[string]any)["emptyEnv"]; got != "1" {
		t.Fatalf("ARGOCD_ENV_TEAM= reached the plugin %v times, want 1 (Argo CD 2.x dropped it)", got)
	}
}

// TestGitCredentialsNeverPrinted: with provideGitCreds the repo-server puts
// the repository's credentials into the plugin's environment; routeguard's
// output and errors never show them.
func TestGitCredentialsNeverPrinted(t *testing.T) {
	const password = "gh-secret-9f8e7d6c5b4a"
	repo := &v1alpha1.Repository{Repo: repoURL, Username: "deploy", Password: password, ForceHttpBasicAuth: true}
	header := base64.StdEncoding.EncodeToString([]byte("deploy:" + password))

	// The probe plugin shows that the credentials do reach the plugin's environment.
	resp, err := generate(t, app{name: "probe", namespace: "x", path: "examples/apps/routing/gateways", repo: repo,
		plugin: &v1alpha1.ApplicationSourcePlugin{Name: pluginEnvProbe}})
	if err != nil {
		t.Fatal(err)
	}
	if got := objectsOf(t, resp.Manifests)[0]["data"].(map[string]any)["creds"]; got != "1" {
		t.Fatalf("ARGOCD_GIT_AUTH_HEADER did not reach the plugin (count %v); the test would prove nothing", got)
	}
	for _, c := range []struct {
		path   string
		params v1alpha1.ApplicationSourcePluginParameters
	}{
		{"examples/apps/routing/gateways", nil},
		{"examples/broken/dangling-service", nil},
		{"examples/apps/backend", arrayParam("values-files", "no-such-values.yaml")},
		{"examples/apps/backend", v1alpha1.ApplicationSourcePluginParameters{stringParam("no-such-parameter", "x")}},
	} {
		resp, err := generate(t, app{name: "creds", namespace: "x", path: c.path, repo: repo,
			plugin: &v1alpha1.ApplicationSourcePlugin{Name: pluginCreds, Parameters: c.params}})
		var seen strings.Builder
		if err != nil {
			seen.WriteString(err.Error())
		}
		if resp != nil {
			seen.WriteString(strings.Join(resp.Manifests, "\n"))
		}
		if s := seen.String(); strings.Contains(s, password) || strings.Contains(s, header) {
			t.Errorf("%s: credentials in what Argo CD receives:\n%s", c.path, s)
		}
	}
}

// TestSubstitutionVariables: the Flux app status-page uses ${var}
// substitution; through the CMP the variables come from a parameter, and the
// announcement offers them with their defaults.
func TestSubstitutionVariables(t *testing.T) {
	a := app{name: "status-page", namespace: "status", path: "examples/flux/apps/status-page",
		plugin: &v1alpha1.ApplicationSourcePlugin{Name: pluginShipped}}
	if _, err := generate(t, a); err == nil || !strings.Contains(err.Error(), "RG5006 error Deployment status/status-page") {
		t.Errorf("without variables: %v; want the unsubstituted replicas reported", err)
	}
	list, err := announce(t, a)
	if err != nil {
		t.Fatal(err)
	}
	var offered map[string]string
	for _, p := range list {
		if p.Name == "substitution-variables" {
			offered = p.Map
		}
	}
	want := map[string]string{"cluster_domain": "", "cluster_name": "", "environment": "", "status_replicas": "1"}
	if !reflect.DeepEqual(offered, want) {
		t.Errorf("announced variables %v, want %v", offered, want)
	}
	a.plugin.Parameters = v1alpha1.ApplicationSourcePluginParameters{mapParam("substitution-variables",
		map[string]string{"cluster_domain": "shop.example.com", "cluster_name": "prod-eu", "environment": "prod"})}
	resp, err := generate(t, a)
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Join(resp.Manifests, "\n")
	for _, want := range []string{`"replicas":1`, `"status.shop.example.com"`, `"value":"prod-eu"`, `"value":"${not_a_flux_variable}"`} {
		if !strings.Contains(out, want) {
			t.Errorf("substituted manifests lack %s:\n%s", want, out)
		}
	}
}

// TestManifestGeneratePaths: with the manifest-generate-paths annotation
// (and cmp.useManifestGeneratePaths) Argo CD streams only the common root of
// the app's paths; routeguard finds that root and renders the same objects.
func TestManifestGeneratePaths(t *testing.T) {
	cases := []struct {
		name, ns, path, paths string
		renderArgs            []string
	}{
		// Streams examples/apps/frontend only: the overlay's base is inside it.
		{"frontend-prod", "shop-prod", "examples/apps/frontend/overlays/prod", ".;../../base", nil},
		// Streams the chart directory only.
		{"backend-prod", "shop-prod", "examples/apps/backend", ".", []string{"-f", "values-prod.yaml"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var params v1alpha1.ApplicationSourcePluginParameters
			if c.renderArgs != nil {
				params = arrayParam("values-files", "values-prod.yaml")
			}
			resp, err := generate(t, app{name: c.name, namespace: c.ns, path: c.path, generatePaths: c.paths,
				plugin: &v1alpha1.ApplicationSourcePlugin{Name: pluginShipped, Parameters: params}})
			if err != nil {
				t.Fatalf("GenerateManifests: %v", err)
			}
			got := objectsOf(t, resp.Manifests)
			want := renderObjects(t, c.path, append([]string{"--namespace", c.ns, "--release", c.name}, c.renderArgs...)...)
			if len(want) == 0 || !reflect.DeepEqual(got, want) {
				t.Errorf("manifests from argocd-cmp-server:\n%v\nrouteguard render:\n%v", names(got), names(want))
			}
		})
	}
	// Proof that only the subset travels: the overlay alone cannot reach its base.
	_, err := generate(t, app{name: "narrow", namespace: "shop-prod", path: "examples/apps/frontend/overlays/prod", generatePaths: ".",
		plugin: &v1alpha1.ApplicationSourcePlugin{Name: pluginShipped}})
	if err == nil || !strings.Contains(err.Error(), "outside the repository root") {
		t.Errorf("overlay streamed without its base: %v; want routeguard to refuse the base outside what was sent", err)
	}
}
