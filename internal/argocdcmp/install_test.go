package argocdcmp

import (
	"os"
	"path"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/resultcache"
)

// TestInstallComponent builds cmp/ (the Kustomize component) on top of
// Argo CD's repo-server Deployment and checks the sidecar Argo CD needs:
// argocd-cmp-server from var-files as entrypoint, the shared plugins volume,
// plugin.yaml at the config path, its own /tmp, user 999.
func TestInstallComponent(t *testing.T) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), "testdata/install")
	if err != nil {
		t.Fatal(err)
	}
	pluginYAML, err := os.ReadFile("../../cmp/plugin.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var deploy, cm map[string]any
	for _, r := range m.Resources() {
		body, err := r.Map()
		if err != nil {
			t.Fatal(err)
		}
		switch r.GetKind() {
		case "Deployment":
			deploy = body
		case "ConfigMap":
			cm = body
		}
	}
	if cm == nil || cm["metadata"].(map[string]any)["name"] != "routeguard-cmp-plugin" || cm["metadata"].(map[string]any)["namespace"] != "argocd" {
		t.Fatalf("ConfigMap routeguard-cmp-plugin missing or misplaced: %v", cm)
	}
	if got := cm["data"].(map[string]any)["plugin.yaml"]; got != string(pluginYAML) {
		t.Errorf("ConfigMap plugin.yaml differs from cmp/plugin.yaml")
	}
	spec := deploy["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	var sidecar map[string]any
	for _, c := range spec["containers"].([]any) {
		if c.(map[string]any)["name"] == "routeguard" {
			sidecar = c.(map[string]any)
		}
	}
	if sidecar == nil {
		t.Fatal("no routeguard container in argocd-repo-server")
	}
	if len(spec["containers"].([]any)) != 2 {
		t.Errorf("the patch must add a container, not replace argocd-repo-server: %d containers", len(spec["containers"].([]any)))
	}
	if cmd := sidecar["command"].([]any); len(cmd) != 1 || cmd[0] != "/var/run/argocd/argocd-cmp-server" {
		t.Errorf("entrypoint = %v", cmd)
	}
	sc := sidecar["securityContext"].(map[string]any)
	if sc["runAsUser"] != int64(999) && sc["runAsUser"] != float64(999) && sc["runAsUser"] != 999 {
		t.Errorf("runAsUser = %v (%T), want 999", sc["runAsUser"], sc["runAsUser"])
	}
	if sc["runAsNonRoot"] != true {
		t.Error("runAsNonRoot must be true")
	}
	mounts := map[string]string{}
	for _, vm := range sidecar["volumeMounts"].([]any) {
		v := vm.(map[string]any)
		mounts[v["mountPath"].(string)] = v["name"].(string)
	}
	want := map[string]string{
		"/var/run/argocd":                            "var-files",
		"/home/argocd/cmp-server/plugins":            "plugins",
		"/home/argocd/cmp-server/config/plugin.yaml": "routeguard-cmp-plugin",
		"/tmp":                  "routeguard-cmp-tmp",
		"/var/cache/routeguard": "routeguard-cmp-cache",
	}
	for path, vol := range want {
		if mounts[path] != vol {
			t.Errorf("mount %s = %q, want volume %q", path, mounts[path], vol)
		}
	}
	vols := map[string]map[string]any{}
	for _, v := range spec["volumes"].([]any) {
		vols[v.(map[string]any)["name"].(string)] = v.(map[string]any)
	}
	if _, ok := vols["routeguard-cmp-tmp"]["emptyDir"]; !ok {
		t.Error("the sidecar's /tmp must be its own emptyDir")
	}
	if _, ok := vols["var-files"]; !ok {
		t.Error("Argo CD's var-files volume was lost")
	}
	checkCache(t, "cmp/ (Kustomize)", sidecar, vols)
	out, _ := yaml.Marshal(sidecar)
	t.Logf("sidecar:\n%s", out)
}

// TestHelmValuesCache: cmp/helm-values.yaml gives the argo-cd chart's
// sidecar the same validation cache as the Kustomize component.
func TestHelmValuesCache(t *testing.T) {
	data, err := os.ReadFile("../../cmp/helm-values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var values struct {
		RepoServer struct {
			ExtraContainers []map[string]any `json:"extraContainers"`
			Volumes         []map[string]any `json:"volumes"`
		} `json:"repoServer"`
	}
	if err := yaml.Unmarshal(data, &values); err != nil {
		t.Fatal(err)
	}
	if len(values.RepoServer.ExtraContainers) != 1 {
		t.Fatalf("%d extra containers, want the routeguard sidecar only", len(values.RepoServer.ExtraContainers))
	}
	vols := map[string]map[string]any{}
	for _, v := range values.RepoServer.Volumes {
		vols[v["name"].(string)] = v
	}
	checkCache(t, "cmp/helm-values.yaml", values.RepoServer.ExtraContainers[0], vols)
}

// checkCache: the sidecar's ROUTEGUARD_CACHE_DIR is a directory below the
// mount of an emptyDir of its own (the root file system is read-only; the
// emptyDir's root belongs to root, so routeguard makes its own 0700
// directory in it), larger than the cache's bound, and neither the
// unpacked repositories' /tmp nor any other volume.
func checkCache(t *testing.T, what string, sidecar map[string]any, vols map[string]map[string]any) {
	t.Helper()
	dir := ""
	for _, e := range sidecar["env"].([]any) {
		if e := e.(map[string]any); e["name"] == "ROUTEGUARD_CACHE_DIR" {
			dir, _ = e["value"].(string)
		}
	}
	if !path.IsAbs(dir) {
		t.Fatalf("%s: ROUTEGUARD_CACHE_DIR = %q, want an absolute path", what, dir)
	}
	vol, mountPath := "", ""
	for _, vm := range sidecar["volumeMounts"].([]any) {
		v := vm.(map[string]any)
		mp := v["mountPath"].(string)
		if strings.HasPrefix(dir, mp+"/") && len(mp) > len(mountPath) {
			vol, mountPath = v["name"].(string), mp
		}
		if v["readOnly"] == true && vol == v["name"] {
			t.Errorf("%s: the cache volume is mounted read-only", what)
		}
	}
	if vol != "routeguard-cmp-cache" || mountPath == "/tmp" || dir == mountPath {
		t.Fatalf("%s: ROUTEGUARD_CACHE_DIR %s is on volume %q at %q, want a directory below the mount of routeguard-cmp-cache", what, dir, vol, mountPath)
	}
	ed, ok := vols[vol]["emptyDir"].(map[string]any)
	if !ok {
		t.Fatalf("%s: volume %s is not an emptyDir: %v", what, vol, vols[vol])
	}
	limit, err := resource.ParseQuantity(ed["sizeLimit"].(string))
	// The bound is exceeded while concurrent generations write before one
	// of them evicts.
	if err != nil || limit.Value() <= resultcache.DefaultMaxBytes {
		t.Errorf("%s: sizeLimit %v (%v), want more than the cache's 256 MiB bound", what, ed["sizeLimit"], err)
	}
}
