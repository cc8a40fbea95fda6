package install

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// mainRoot is the routeguard repository.
var mainRoot = filepath.Join("..", "..", "..")

// argoCD returns the directory and version of the argo-cd module this
// package is built against.
func argoCD(t *testing.T) (dir, version string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}} {{.Version}}", "github.com/argoproj/argo-cd/v3").Output()
	if err != nil {
		t.Fatalf("locate the argo-cd module: %v", err)
	}
	dir, version, _ = strings.Cut(strings.TrimSpace(string(out)), " ")
	return dir, version
}

// build runs Kustomize's krusty on a kustomization that installs Argo CD from
// the module's manifests/install.yaml into namespace argocd and adds the
// components (default: cmp/), as docs/cmp.md tells users to.
func build(t *testing.T, components ...string) (repoServer appsv1.Deployment, pluginCM corev1.ConfigMap, objects int) {
	t.Helper()
	dir, _ := argoCD(t)
	install, err := os.ReadFile(filepath.Join(dir, "manifests", "install.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(components) == 0 {
		components = []string{"cmp"}
	}
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "install.yaml"), install, 0o644); err != nil {
		t.Fatal(err)
	}
	kust := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: argocd\n" +
		"resources:\n  - install.yaml\ncomponents:\n"
	for _, c := range components {
		component, err := filepath.Abs(filepath.Join(mainRoot, filepath.FromSlash(c)))
		if err != nil {
			t.Fatal(err)
		}
		// Kustomize takes components by relative path only.
		rel, err := filepath.Rel(work, component)
		if err != nil {
			t.Fatal(err)
		}
		kust += "  - " + filepath.ToSlash(rel) + "\n"
	}
	kust += "images:\n  - name: ghcr.io/routeguard/routeguard-cmp\n    newTag: v9.9.9\n"
	if err := os.WriteFile(filepath.Join(work, "kustomization.yaml"), []byte(kust), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), work)
	if err != nil {
		t.Fatalf("kustomize build of Argo CD's install.yaml with cmp/: %v", err)
	}
	found := 0
	for _, r := range m.Resources() {
		if r.GetNamespace() != "argocd" && r.GetKind() != "CustomResourceDefinition" && r.GetKind() != "ClusterRole" && r.GetKind() != "ClusterRoleBinding" {
			t.Errorf("%s %s is in namespace %q, want argocd", r.GetKind(), r.GetName(), r.GetNamespace())
		}
		body, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case r.GetKind() == "Deployment" && r.GetName() == "argocd-repo-server":
			if err := yaml.UnmarshalStrict(body, &repoServer); err != nil {
				t.Fatalf("argocd-repo-server: %v", err)
			}
			found++
		case r.GetKind() == "ConfigMap" && r.GetName() == "routeguard-cmp-plugin":
			if err := yaml.UnmarshalStrict(body, &pluginCM); err != nil {
				t.Fatalf("routeguard-cmp-plugin: %v", err)
			}
			found++
		}
	}
	if found != 2 {
		t.Fatalf("argocd-repo-server or routeguard-cmp-plugin missing from the build (%d objects)", len(m.Resources()))
	}
	return repoServer, pluginCM, len(m.Resources())
}

// TestSidecarOnArgoCDInstall: the component adds the sidecar to Argo CD's own
// repo-server Deployment without dropping anything of it, every volume the
// sidecar mounts exists in the pod, argocd-cmp-server comes from the
// var-files volume that Argo CD's copyutil init container fills, and the
// plugin.yaml ConfigMap is the shipped file.
func TestSidecarOnArgoCDInstall(t *testing.T) {
	deploy, cm, n := build(t)
	if n < 40 {
		t.Errorf("only %d objects built from install.yaml", n)
	}
	spec := deploy.Spec.Template.Spec
	var sidecar, repo *corev1.Container
	for i := range spec.Containers {
		switch spec.Containers[i].Name {
		case "routeguard":
			sidecar = &spec.Containers[i]
		case "argocd-repo-server":
			repo = &spec.Containers[i]
		}
	}
	if sidecar == nil || repo == nil || len(spec.Containers) != 2 {
		t.Fatalf("containers of argocd-repo-server: %d, routeguard %v, argocd-repo-server %v", len(spec.Containers), sidecar != nil, repo != nil)
	}
	if sidecar.Image != "ghcr.io/routeguard/routeguard-cmp:v9.9.9" {
		t.Errorf("sidecar image %q: the images transformer did not reach it", sidecar.Image)
	}
	if len(sidecar.Command) != 1 || sidecar.Command[0] != "/var/run/argocd/argocd-cmp-server" {
		t.Errorf("sidecar command %v", sidecar.Command)
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = v
	}
	for _, m := range sidecar.VolumeMounts {
		if _, ok := volumes[m.Name]; !ok {
			t.Errorf("the sidecar mounts volume %q, which argocd-repo-server's pod does not have", m.Name)
		}
	}
	mounts := map[string]string{}
	for _, m := range sidecar.VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	if mounts["/var/run/argocd"] != "var-files" || mounts["/home/argocd/cmp-server/plugins"] != "plugins" ||
		mounts["/home/argocd/cmp-server/config/plugin.yaml"] != "routeguard-cmp-plugin" || mounts["/tmp"] != "routeguard-cmp-tmp" ||
		mounts["/var/cache/routeguard"] != "routeguard-cmp-cache" {
		t.Errorf("sidecar mounts %v", mounts)
	}
	if volumes["routeguard-cmp-plugin"].ConfigMap == nil || volumes["routeguard-cmp-plugin"].ConfigMap.Name != cm.Name || volumes["routeguard-cmp-tmp"].EmptyDir == nil {
		t.Errorf("volumes routeguard-cmp-plugin %+v, routeguard-cmp-tmp %+v", volumes["routeguard-cmp-plugin"], volumes["routeguard-cmp-tmp"])
	}
	// The validation cache: its own emptyDir (the root file system is
	// read-only), ROUTEGUARD_CACHE_DIR a directory below its mount.
	if ed := volumes["routeguard-cmp-cache"].EmptyDir; ed == nil || ed.SizeLimit == nil || ed.SizeLimit.Value() <= 256<<20 {
		t.Errorf("volume routeguard-cmp-cache %+v: want an emptyDir above the cache's 256 MiB bound", volumes["routeguard-cmp-cache"])
	}
	cacheDir := ""
	for _, e := range sidecar.Env {
		if e.Name == "ROUTEGUARD_CACHE_DIR" {
			cacheDir = e.Value
		}
	}
	if !strings.HasPrefix(cacheDir, "/var/cache/routeguard/") {
		t.Errorf("ROUTEGUARD_CACHE_DIR = %q, want a directory below the routeguard-cmp-cache mount", cacheDir)
	}
	// Argo CD's copyutil init container copies argocd (argocd-cmp-server is a
	// link to it) into var-files; the repo-server mounts the plugins socket
	// directory the sidecar serves on.
	copies := false
	for _, c := range spec.InitContainers {
		for _, m := range c.VolumeMounts {
			copies = copies || (m.Name == "var-files" && m.MountPath == "/var/run/argocd" && strings.Contains(strings.Join(append(c.Command, c.Args...), " "), "argocd-cmp-server"))
		}
	}
	if !copies {
		t.Error("no init container of Argo CD's puts argocd-cmp-server into var-files; the sidecar's entrypoint would be missing")
	}
	repoMounts := map[string]string{}
	for _, m := range repo.VolumeMounts {
		repoMounts[m.MountPath] = m.Name
	}
	if repoMounts["/home/argocd/cmp-server/plugins"] != "plugins" {
		t.Errorf("argocd-repo-server mounts %v; the plugins socket directory is not shared", repoMounts)
	}
	if sc := sidecar.SecurityContext; sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != 999 || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("sidecar securityContext %+v, want user 999, non-root", sc)
	}
	shipped, err := os.ReadFile(filepath.Join(mainRoot, "cmp", "plugin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if cm.Namespace != "argocd" || cm.Data["plugin.yaml"] != string(shipped) {
		t.Errorf("ConfigMap %s/%s does not hold cmp/plugin.yaml", cm.Namespace, cm.Name)
	}
}

// TestDiscoveryComponent: the opt-in component cmp/discovery, used after cmp/,
// replaces the sidecar's plugin.yaml with cmp/discovery/plugin.yaml and
// changes nothing else of the install.
func TestDiscoveryComponent(t *testing.T) {
	plainDeploy, _, plainN := build(t)
	deploy, cm, n := build(t, "cmp", "cmp/discovery")
	want, err := os.ReadFile(filepath.Join(mainRoot, "cmp", "discovery", "plugin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if cm.Name != "routeguard-cmp-plugin" || cm.Data["plugin.yaml"] != string(want) || len(cm.Data) != 1 {
		t.Errorf("ConfigMap %s holds %d keys; want only plugin.yaml = cmp/discovery/plugin.yaml", cm.Name, len(cm.Data))
	}
	if n != plainN {
		t.Errorf("%d objects with cmp/discovery, %d without: the component must only replace the ConfigMap", n, plainN)
	}
	a, _ := yaml.Marshal(plainDeploy)
	b, _ := yaml.Marshal(deploy)
	if string(a) != string(b) {
		t.Error("cmp/discovery changed argocd-repo-server")
	}
}

// TestInstallExamplesPinTheTestedRelease: the install.yaml URLs in cmp/,
// README.md and docs name the Argo CD release these tests build against.
func TestInstallExamplesPinTheTestedRelease(t *testing.T) {
	_, version := argoCD(t)
	url := regexp.MustCompile(`argoproj/argo-cd/(v[0-9][^/]*)/manifests/install\.yaml`)
	total := 0
	for _, f := range []string{"cmp/kustomization.yaml", "README.md", "docs/cmp.md", "docs/notifications.md", "docs/health.md"} {
		data, err := os.ReadFile(filepath.Join(mainRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range url.FindAllStringSubmatch(string(data), -1) {
			total++
			if m[1] != version {
				t.Errorf("%s installs Argo CD %s; the tests run against %s", f, m[1], version)
			}
		}
	}
	if total < 3 {
		t.Errorf("only %d install.yaml URLs found in cmp/kustomization.yaml, README.md and docs", total)
	}
}
