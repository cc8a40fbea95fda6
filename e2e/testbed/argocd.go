package testbed

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// Argo CD's components as local processes, as its own Procfile runs them
// (application-controller, repo-server, argocd-cmp-server with routeguard's
// cmp/plugin.yaml, notifications), from Argo CD's multi-call binary built by
// e2e/tools/argocd. argocd-server does not run: the test bed applies the
// `default` AppProject it would create.
type Argo struct {
	Namespace  string
	Controller *Proc
	RepoServer *Proc
	CMPServer  *Proc
	Notifier   *Proc
	// MetricsURL is the application controller's Prometheus endpoint.
	MetricsURL string

	redis *miniredis.Miniredis
}

// ApplicationGVK is Argo CD's Application.
var ApplicationGVK = schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "Application"}

// ArgoOptions says how Argo CD is configured.
type ArgoOptions struct {
	// PluginConfigDir holds the plugin.yaml argocd-cmp-server loads
	// (default: cmp/ of the checkout: routeguard's shipped configuration).
	PluginConfigDir string
}

// Argo starts (once) Argo CD with routeguard's sidecar, health checks and
// notification bundle, and the services it needs (API server, Git server,
// Slack sink).
func (b *Bed) Argo(t testing.TB) *Argo {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.kubeLocked(t)
	b.repoLocked(t)
	b.sinkLocked(t)
	b.start(t, "argo cd", func() bool { return b.argo != nil }, func() error {
		a, err := b.startArgo(context.Background(), ArgoOptions{})
		b.argo = a
		return err
	})
	return b.argo
}

func (b *Bed) startArgo(ctx context.Context, o ArgoOptions) (*Argo, error) {
	bin, err := Tool("argocd", "argocd")
	if err != nil {
		return nil, err
	}
	if o.PluginConfigDir == "" {
		o.PluginConfigDir = filepath.Join(b.RepoRoot, "cmp")
	}
	a := &Argo{Namespace: "argocd"}
	if err := b.installArgoConfig(ctx); err != nil {
		return nil, err
	}
	a.redis = miniredis.NewMiniRedis()
	if err := a.redis.StartAddr("127.0.0.1:0"); err != nil {
		return nil, fmt.Errorf("miniredis: %w", err)
	}
	// miniredis keeps time only when told: without this no key expires, and
	// the repo-server's cached `git ls-remote` of a branch never would. (It
	// runs as long as the test process; FastForward on a closed server only
	// touches its memory.)
	go func(m *miniredis.Miniredis) {
		for range time.Tick(time.Second) {
			m.FastForward(time.Second)
		}
	}(a.redis)
	ports, err := freePorts(5)
	if err != nil {
		return nil, err
	}
	repoAddr := "127.0.0.1:" + strconv.Itoa(ports[0])
	sockDir := filepath.Join(b.Procs.Root, "cmp-sockets")
	if err := os.MkdirAll(sockDir, 0o700); err != nil {
		return nil, err
	}
	common := []string{
		"ARGOCD_FAKE_IN_CLUSTER=true",
		"KUBECONFIG=" + b.kube.Kubeconfig,
		"ARGOCD_NAMESPACE=argocd",
		"ARGOCD_GPG_ENABLED=false",
		"ARGOCD_PLUGINSOCKFILEPATH=" + sockDir,
	}
	dataDirs := func(name string) []string {
		d := filepath.Join(b.Procs.Root, name)
		for _, sub := range []string{"tls", "ssh", "gpg"} {
			_ = os.MkdirAll(filepath.Join(d, sub), 0o700)
		}
		return []string{
			"ARGOCD_TLS_DATA_PATH=" + filepath.Join(d, "tls"),
			"ARGOCD_SSH_DATA_PATH=" + filepath.Join(d, "ssh"),
			"ARGOCD_GNUPGHOME=" + filepath.Join(d, "gpg"),
			"ARGOCD_GPG_DATA_PATH=" + filepath.Join(d, "gpg"),
		}
	}
	// The sidecar: routeguard's plugin.yaml as shipped, `routeguard` on PATH.
	rgDir := filepath.Join(b.Procs.Root, "routeguard-bin")
	if err := os.MkdirAll(rgDir, 0o700); err != nil {
		return nil, err
	}
	if err := os.Symlink(b.Routeguard, filepath.Join(rgDir, "routeguard")); err != nil {
		return nil, err
	}
	// Its validation cache, as cmp/repo-server-sidecar.yaml sets it: a
	// directory of its own, outside the repositories it unpacks.
	cacheDir := filepath.Join(b.Procs.Root, "routeguard-cache", "validation")
	if a.CMPServer, err = b.Procs.Start(StartOptions{
		Name: "argocd-cmp-server", Path: bin, Argv0: "argocd-cmp-server",
		Args: []string{"--config-dir-path", o.PluginConfigDir, "--loglevel", "info"},
		Env:  append(append([]string{"PATH=" + rgDir + ":" + os.Getenv("PATH"), "ROUTEGUARD_CACHE_DIR=" + cacheDir}, common...), dataDirs("argocd-cmp-server")...),
	}); err != nil {
		return nil, err
	}
	// The repo-server runs Argo CD's git-verify-wrapper.sh on every
	// revision (its image ships it in /usr/local/bin).
	argoDir, err := ModuleDir("argocd", "github.com/argoproj/argo-cd/v3")
	if err != nil {
		return nil, err
	}
	script, err := os.ReadFile(filepath.Join(argoDir, "hack", "git-verify-wrapper.sh"))
	if err != nil {
		return nil, err
	}
	argoBin := filepath.Join(b.Procs.Root, "argocd-bin")
	if err := os.MkdirAll(argoBin, 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(argoBin, "git-verify-wrapper.sh"), script, 0o700); err != nil {
		return nil, err
	}
	// helm and kustomize (e2e/tools/argocd-tools, the versions Argo CD
	// v3.5.7 ships) on the repo-server's PATH, as in Argo CD's image, for
	// the apps Argo CD renders with its own tools.
	tools, err := ToolDir("argocd-tools")
	if err != nil {
		return nil, err
	}
	repoPath := tools + ":" + argoBin + ":" + os.Getenv("PATH")
	if a.RepoServer, err = b.Procs.Start(StartOptions{
		Name: "argocd-repo-server", Path: bin, Argv0: "argocd-repo-server",
		Args: []string{
			"--address", "127.0.0.1", "--port", strconv.Itoa(ports[0]),
			"--metrics-address", "127.0.0.1", "--metrics-port", strconv.Itoa(ports[1]),
			"--redis", a.redis.Addr(), "--disable-tls", "--client-ca-path", "", "--loglevel", "info",
			// A new commit is seen within seconds (no Git webhook here).
			"--revision-cache-expiration", "5s",
		},
		Env: append(append([]string{"PATH=" + repoPath}, common...), dataDirs("argocd-repo-server")...),
	}); err != nil {
		return nil, err
	}
	a.MetricsURL = "http://127.0.0.1:" + strconv.Itoa(ports[2]) + "/metrics"
	if a.Controller, err = b.Procs.Start(StartOptions{
		Name: "argocd-application-controller", Path: bin, Argv0: "argocd-application-controller",
		Args: []string{
			"--repo-server", repoAddr, "--repo-server-plaintext",
			"--redis", a.redis.Addr(),
			"--metrics-port", strconv.Itoa(ports[2]),
			// Every 10 s instead of 120 s: a new revision is seen soon.
			"--app-resync", "10", "--app-resync-jitter", "0",
			"--self-heal-timeout-seconds", "2",
			// Per-resource health in Application.status.resources, so the
			// test reads the verdict of routeguard's Lua check per route.
			"--persist-resource-health",
			"--loglevel", "info",
		},
		Env: append(common, dataDirs("argocd-application-controller")...),
	}); err != nil {
		return nil, err
	}
	if a.Notifier, err = b.Procs.Start(StartOptions{
		Name: "argocd-notifications", Path: bin, Argv0: "argocd-notifications",
		Args: []string{
			"--argocd-repo-server", repoAddr, "--argocd-repo-server-plaintext",
			"--metrics-port", strconv.Itoa(ports[3]), "--loglevel", "info",
		},
		Env: append(common, dataDirs("argocd-notifications")...),
	}); err != nil {
		return nil, err
	}
	// The controller listens on its metrics port once it runs.
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	err = waitFor(ctx, 250*time.Millisecond, "argocd-application-controller metrics", func() (bool, error) {
		for _, p := range []*Proc{a.CMPServer, a.RepoServer, a.Controller, a.Notifier} {
			if done, err := p.Exited(); done {
				return false, fmt.Errorf("%s exited: %v\n%s", p.Name, err, p.Tail(3000))
			}
		}
		_, err := httpGet(a.MetricsURL)
		return err == nil, err
	})
	if err != nil {
		return a, err
	}
	return a, nil
}

// installArgoConfig applies what an install applies: Argo CD's CRDs, the
// argocd namespace, argocd-cm with routeguard's health checks, argocd-secret,
// argocd-notifications-cm with routeguard's bundle and a Slack service
// pointing at the sink, the default AppProject.
func (b *Bed) installArgoConfig(ctx context.Context) error {
	argoDir, err := ModuleDir("argocd", "github.com/argoproj/argo-cd/v3")
	if err != nil {
		return err
	}
	crds, err := ReadCRDDir(filepath.Join(argoDir, "manifests", "crds"))
	if err != nil {
		return err
	}
	if err := InstallCRDs(ctx, b.kube, crds); err != nil {
		return err
	}
	health, err := b.routeguardData("health", "bundle", "--for", "argocd", "--override-builtin")
	if err != nil {
		return err
	}
	bundle, err := b.routeguardData("notifications", "bundle", "--for", "argocd")
	if err != nil {
		return err
	}
	// As installed: routeguard's bundle (a strategic-merge patch of the
	// ConfigMap's data) over Argo CD's notifications catalog.
	notif, err := configMapData(filepath.Join(argoDir, "notifications_catalog", "install.yaml"))
	if err != nil {
		return err
	}
	for k, v := range bundle {
		notif[k] = v
	}
	notif["service.slack"] = "token: $slack-token\napiURL: " + b.sink.URL + "/api/\n"
	notif["context"] = "argocdUrl: https://argocd.e2e.invalid\n"
	health["timeout.reconciliation"] = "10s"
	objs := []*unstructured.Unstructured{
		object("v1", "Namespace", "", "argocd", nil),
		object("v1", "ConfigMap", "argocd", "argocd-cm", map[string]any{"data": toAny(health)}),
		object("v1", "ConfigMap", "argocd", "argocd-cmd-params-cm", nil),
		object("v1", "Secret", "argocd", "argocd-secret", map[string]any{"stringData": map[string]any{"server.secretkey": "e2e-not-secret"}}),
		object("v1", "ConfigMap", "argocd", "argocd-notifications-cm", map[string]any{"data": toAny(notif)}),
		object("v1", "Secret", "argocd", "argocd-notifications-secret", map[string]any{"stringData": map[string]any{
			"slack-token":       "xoxb-e2e-not-a-token",
			"slack-webhook-url": b.sink.URL + "/api/webhook",
		}}),
		object("argoproj.io/v1alpha1", "AppProject", "argocd", "default", map[string]any{"spec": map[string]any{
			"sourceRepos":              []any{"*"},
			"destinations":             []any{map[string]any{"server": "*", "namespace": "*"}},
			"clusterResourceWhitelist": []any{map[string]any{"group": "*", "kind": "*"}},
		}}),
	}
	// Argo CD's settings informers only see objects with this label.
	for _, o := range objs[1:] {
		o.SetLabels(map[string]string{"app.kubernetes.io/part-of": "argocd"})
	}
	return b.kube.Apply(ctx, objs...)
}

// configMapData reads the data of the ConfigMap in a file.
func configMapData(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal(b, &cm); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if cm.Data == nil {
		return nil, fmt.Errorf("%s: no ConfigMap data", path)
	}
	return cm.Data, nil
}

// routeguardData runs a routeguard bundle command and returns the data of
// the ConfigMap (patch) it prints.
func (b *Bed) routeguardData(args ...string) (map[string]string, error) {
	cmd := exec.Command(b.Routeguard, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("routeguard %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal(out, &cm); err != nil {
		return nil, fmt.Errorf("routeguard %s: %w", strings.Join(args, " "), err)
	}
	if len(cm.Data) == 0 {
		return nil, fmt.Errorf("routeguard %s printed no data", strings.Join(args, " "))
	}
	return cm.Data, nil
}

func object(apiVersion, kind, namespace, name string, fields map[string]any) *unstructured.Unstructured {
	o := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name}}
	if namespace != "" {
		o["metadata"].(map[string]any)["namespace"] = namespace
	}
	for k, v := range fields {
		o[k] = v
	}
	return &unstructured.Unstructured{Object: o}
}

func toAny(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// ExampleURL is the repository URL the examples name; the test bed's copy
// of the examples names the loopback Git server's instead.
const ExampleURL = "https://git.example.com/platform/shop-gitops.git"

// ApplyFile applies the objects of a file of the working copy.
func (b *Bed) ApplyFile(ctx context.Context, rel string) error {
	data, err := b.repo.ReadFile(rel)
	if err != nil {
		return err
	}
	return b.kube.ApplyYAML(ctx, []byte(data))
}

func httpGet(url string) ([]byte, error) {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return b, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return b, nil
}

// Metrics reads the application controller's Prometheus metrics.
func (a *Argo) Metrics() (string, error) {
	b, err := httpGet(a.MetricsURL)
	return string(b), err
}
