package cmpcompat

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/argoproj/argo-cd/v3/cmpserver/plugin"
)

// TestPluginConfigLoads: Argo CD's loader accepts cmp/plugin.yaml and reads
// what routeguard means: version v1 (socket routeguard-v1.sock), no
// discovery; cmp/discovery/plugin.yaml is the same plugin with the opt-in
// discover command and nothing else changed.
func TestPluginConfigLoads(t *testing.T) {
	cfg, err := plugin.ReadPluginConfig(filepath.Join(mainRoot, "cmp"))
	if err != nil {
		t.Fatal(err)
	}
	if err := plugin.ValidatePluginConfig(*cfg); err != nil {
		t.Fatal(err)
	}
	s := cfg.Spec
	if cfg.Metadata.Name != "routeguard" || s.Version != "v1" || !strings.HasSuffix(cfg.Address(), "/"+pluginShipped+".sock") {
		t.Errorf("name %q version %q address %q; want routeguard, v1, %s.sock", cfg.Metadata.Name, s.Version, cfg.Address(), pluginShipped)
	}
	if !reflect.DeepEqual(s.Generate.Command, []string{"routeguard", "cmp", "generate"}) ||
		!reflect.DeepEqual(s.Parameters.Dynamic.Command, []string{"routeguard", "cmp", "parameters"}) {
		t.Errorf("commands: %+v", s)
	}
	if s.Discover.FileName != "" || s.Discover.Find.Glob != "" || len(s.Discover.Find.Command.Command) != 0 {
		t.Errorf("the shipped plugin.yaml discovers (%+v): it would take apps from Argo CD's Helm and Kustomize", s.Discover)
	}
	if s.ProvideGitCreds {
		t.Error("routeguard must not ask for git credentials")
	}
	optIn, err := plugin.ReadPluginConfig(filepath.Join(mainRoot, "cmp", "discovery"))
	if err != nil {
		t.Fatal(err)
	}
	if err := plugin.ValidatePluginConfig(*optIn); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(optIn.Spec.Discover.Find.Command.Command, []string{"routeguard", "cmp", "discover"}) {
		t.Errorf("cmp/discovery: discover %+v, want find.command routeguard cmp discover", optIn.Spec.Discover)
	}
	optIn.Spec.Discover = s.Discover
	if !reflect.DeepEqual(optIn.Metadata, cfg.Metadata) || !reflect.DeepEqual(optIn.Spec, s) {
		t.Errorf("cmp/discovery/plugin.yaml differs from cmp/plugin.yaml beyond the discover block:\n%+v\n%+v", optIn, cfg)
	}
}

// TestHelmValuesMatchPluginYAML: the argo-cd chart turns
// configs.cmp.plugins.routeguard into argocd-cmp-cm's routeguard.yaml
// (templates/argocd-configs/argocd-cmp-cm.yaml: apiVersion, kind,
// metadata.name from the key, spec from the value); that file must load
// into the same spec as cmp/plugin.yaml.
func TestHelmValuesMatchPluginYAML(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(mainRoot, "cmp", "helm-values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var values struct {
		Configs struct {
			CMP struct {
				Create  bool                      `json:"create"`
				Plugins map[string]map[string]any `json:"plugins"`
			} `json:"cmp"`
		} `json:"configs"`
		RepoServer struct {
			ExtraContainers []map[string]any `json:"extraContainers"`
			Volumes         []map[string]any `json:"volumes"`
		} `json:"repoServer"`
	}
	if err := yaml.Unmarshal(data, &values); err != nil {
		t.Fatal(err)
	}
	spec, ok := values.Configs.CMP.Plugins["routeguard"]
	if !values.Configs.CMP.Create || !ok {
		t.Fatal("configs.cmp.create and configs.cmp.plugins.routeguard must be set")
	}
	specYAML, err := yaml.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	doc := "apiVersion: argoproj.io/v1alpha1\nkind: ConfigManagementPlugin\nmetadata:\n  name: routeguard\nspec:\n  " +
		strings.ReplaceAll(strings.TrimSpace(string(specYAML)), "\n", "\n  ") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "plugin.yaml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	fromChart, err := plugin.ReadPluginConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := plugin.ReadPluginConfig(filepath.Join(mainRoot, "cmp"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromChart.Spec, shipped.Spec) {
		t.Errorf("chart values give\n%+v\ncmp/plugin.yaml gives\n%+v", fromChart.Spec, shipped.Spec)
	}
	// -f helm-values.yaml -f helm-values-discovery.yaml: Helm merges the
	// maps; the result is cmp/discovery/plugin.yaml's spec.
	extra, err := os.ReadFile(filepath.Join(mainRoot, "cmp", "helm-values-discovery.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var more struct {
		Configs struct {
			CMP struct {
				Plugins map[string]map[string]any `json:"plugins"`
			} `json:"cmp"`
		} `json:"configs"`
	}
	if err := yaml.UnmarshalStrict(extra, &more); err != nil {
		t.Fatal(err)
	}
	if len(more.Configs.CMP.Plugins) != 1 || len(more.Configs.CMP.Plugins["routeguard"]) != 1 {
		t.Fatalf("helm-values-discovery.yaml must only add configs.cmp.plugins.routeguard.discover, got %v", more.Configs.CMP.Plugins)
	}
	merged := map[string]any{}
	for k, v := range spec {
		merged[k] = v
	}
	merged["discover"] = more.Configs.CMP.Plugins["routeguard"]["discover"]
	mergedYAML, err := yaml.Marshal(merged)
	if err != nil {
		t.Fatal(err)
	}
	doc = "apiVersion: argoproj.io/v1alpha1\nkind: ConfigManagementPlugin\nmetadata:\n  name: routeguard\nspec:\n  " +
		strings.ReplaceAll(strings.TrimSpace(string(mergedYAML)), "\n", "\n  ") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "plugin.yaml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	fromChart, err = plugin.ReadPluginConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	optIn, err := plugin.ReadPluginConfig(filepath.Join(mainRoot, "cmp", "discovery"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromChart.Spec, optIn.Spec) {
		t.Errorf("chart values with helm-values-discovery.yaml give\n%+v\ncmp/discovery/plugin.yaml gives\n%+v", fromChart.Spec, optIn.Spec)
	}
	if len(values.RepoServer.ExtraContainers) != 1 {
		t.Fatalf("want one extra container, got %d", len(values.RepoServer.ExtraContainers))
	}
	c := values.RepoServer.ExtraContainers[0]
	mounts := map[string]string{}
	for _, m := range c["volumeMounts"].([]any) {
		mm := m.(map[string]any)
		mounts[mm["mountPath"].(string)] = mm["name"].(string)
		if mm["mountPath"] == "/home/argocd/cmp-server/config/plugin.yaml" && mm["subPath"] != "routeguard.yaml" {
			t.Errorf("plugin.yaml must come from argocd-cmp-cm key routeguard.yaml, got subPath %v", mm["subPath"])
		}
	}
	for path, vol := range map[string]string{"/var/run/argocd": "var-files", "/home/argocd/cmp-server/plugins": "plugins", "/tmp": "routeguard-cmp-tmp", "/var/cache/routeguard": "routeguard-cmp-cache"} {
		if mounts[path] != vol {
			t.Errorf("mount %s = %q, want %q", path, mounts[path], vol)
		}
	}
	if c["command"].([]any)[0] != "/var/run/argocd/argocd-cmp-server" || c["securityContext"].(map[string]any)["runAsUser"] != float64(999) {
		t.Errorf("container: %v", c)
	}
}
