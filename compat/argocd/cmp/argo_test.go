package cmpcompat

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	grpc_retry "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/retry"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	repoapiclient "github.com/argoproj/argo-cd/v3/reposerver/apiclient"
	"github.com/argoproj/argo-cd/v3/reposerver/repository"
	"github.com/argoproj/argo-cd/v3/util/app/discovery"
	"github.com/argoproj/argo-cd/v3/util/cmp"
	"github.com/argoproj/argo-cd/v3/util/git"
)

const (
	repoURL  = "https://git.example.com/platform/shop-gitops.git"
	revision = "5f3c0c2d9e8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c"
)

var apiVersions = []string{"v1", "apps/v1", "networking.k8s.io/v1", "gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1", "networking.istio.io/v1"}

// app is an Application as far as manifest generation is concerned.
type app struct {
	name, namespace, path string
	root                  string                      // repository root; "" means repoRoot
	source                *v1alpha1.ApplicationSource // nil: built from path and plugin
	plugin                *v1alpha1.ApplicationSourcePlugin
	repo                  *v1alpha1.Repository
	// generatePaths is the argocd.argoproj.io/manifest-generate-paths
	// annotation; with it the repo-server streams only the paths' common root.
	generatePaths string
}

func (a app) request() *repoapiclient.ManifestRequest {
	src := a.source
	if src == nil {
		src = &v1alpha1.ApplicationSource{RepoURL: repoURL, Path: a.path, TargetRevision: "main", Plugin: a.plugin}
	}
	repo := a.repo
	if repo == nil {
		repo = &v1alpha1.Repository{Repo: repoURL}
	}
	return &repoapiclient.ManifestRequest{
		Repo: repo, Revision: revision, AppName: a.name, Namespace: a.namespace,
		ApplicationSource: src, KubeVersion: "1.31.0", ApiVersions: apiVersions,
		AnnotationManifestGeneratePaths: a.generatePaths,
	}
}

// generate runs the repo-server's own GenerateManifests (what
// runManifestGenAsync calls): source type detection, plugin env and
// parameters, CMP discovery, the repository stream and the sidecar call.
func generate(t testing.TB, a app) (*repoapiclient.ManifestResponse, error) {
	t.Helper()
	q := a.request()
	root := a.root
	if root == "" {
		root = repoRoot
	}
	return repository.GenerateManifests(requestContext(t), filepath.Join(root, q.ApplicationSource.Path), root, revision, q,
		false, git.NoopCredsStore{}, resource.MustParse("0"), nil,
		repository.WithCMPUseManifestGeneratePaths(a.generatePaths != ""))
}

// pluginEnv is what the repo-server's populatePluginAppDetails sends for
// parameter announcements (getPluginParamEnvs: plugin env and parameters).
func pluginEnv(a app) ([]string, error) {
	env := []string{
		"ARGOCD_APP_NAME=" + a.name,
		"ARGOCD_APP_SOURCE_REPO_URL=" + repoURL,
		"ARGOCD_APP_SOURCE_PATH=" + a.path,
		"ARGOCD_APP_SOURCE_TARGET_REVISION=main",
	}
	if a.plugin == nil {
		return env, nil
	}
	parsed := make(v1alpha1.Env, len(env))
	for i, v := range env {
		e, err := v1alpha1.NewEnvEntry(v)
		if err != nil {
			return nil, err
		}
		parsed[i] = e
	}
	for _, e := range a.plugin.Env {
		env = append(env, fmt.Sprintf("ARGOCD_ENV_%s=%s", e.Name, parsed.Envsubst(e.Value)))
	}
	params, err := a.plugin.Parameters.Environ()
	if err != nil {
		return nil, err
	}
	return append(env, params...), nil
}

// announce asks the sidecar for the app's parameter announcement the way
// the repo-server does for the UI (populatePluginAppDetails).
func announce(t testing.TB, a app) ([]*repoapiclient.ParameterAnnouncement, error) {
	t.Helper()
	ctx := requestContext(t)
	env, err := pluginEnv(a)
	if err != nil {
		return nil, err
	}
	appPath := filepath.Join(repoRoot, a.path)
	name := ""
	if a.plugin != nil {
		name = a.plugin.Name
	}
	conn, client, err := discovery.DetectConfigManagementPlugin(ctx, appPath, repoRoot, name, env, nil)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	stream, err := client.GetParametersAnnouncement(ctx, grpc_retry.Disable())
	if err != nil {
		return nil, err
	}
	if err := cmp.SendRepoStream(stream.Context(), appPath, repoRoot, stream, env, nil); err != nil {
		return nil, err
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return nil, err
	}
	return resp.ParameterAnnouncements, nil
}

// objectsOf decodes manifests (JSON strings, as the repo-server holds them).
func objectsOf(t testing.TB, manifests []string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range manifests {
		var o map[string]any
		if err := json.Unmarshal([]byte(m), &o); err != nil {
			t.Fatalf("manifest is not JSON: %v\n%s", err, m)
		}
		out = append(out, o)
	}
	return out
}

// renderObjects runs `routeguard render` on the same app: what generate must
// hand Argo CD when nothing fails.
func renderObjects(t testing.TB, path string, args ...string) []map[string]any {
	t.Helper()
	cmdArgs := append([]string{"render", filepath.Join(repoRoot, path), "--repo-root", repoRoot, "-o", "yaml"}, args...)
	out, err := runRouteguard(cmdArgs...)
	if err != nil {
		t.Fatalf("routeguard %s: %v", strings.Join(cmdArgs, " "), err)
	}
	var objs []map[string]any
	for _, doc := range strings.Split(out, "\n---\n") {
		doc = strings.TrimPrefix(strings.TrimSpace(doc), "---")
		if strings.TrimSpace(doc) == "" {
			continue
		}
		data, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		var o map[string]any
		if err := json.Unmarshal(data, &o); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o)
	}
	return objs
}

func runRouteguard(args ...string) (string, error) {
	bin, err := filepath.EvalSymlinks(filepath.Join(binDir, "routeguard"))
	if err != nil {
		return "", err
	}
	cmd := execCommand(bin, args...)
	cmd.Dir = repoRoot
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir()}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, stderr.String())
	}
	return string(out), nil
}

func names(objs []map[string]any) []string {
	var out []string
	for _, o := range objs {
		md, _ := o["metadata"].(map[string]any)
		ns, _ := md["namespace"].(string)
		out = append(out, fmt.Sprintf("%v %v/%v", o["kind"], ns, md["name"]))
	}
	return out
}
