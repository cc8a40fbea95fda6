package cmpcompat

import (
	"path/filepath"
	"strings"
	"testing"

	grpc_retry "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/retry"

	"github.com/argoproj/argo-cd/v3/cmpserver/apiclient"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/app/discovery"
	"github.com/argoproj/argo-cd/v3/util/cmp"
)

// matchRepository calls MatchRepository on the shipped plugin's socket.
func matchRepository(t *testing.T, path string, env []string) *apiclient.RepositoryResponse {
	t.Helper()
	ctx := requestContext(t)
	conn, client, err := apiclient.NewConfigManagementPluginClientSet(filepath.Join(sockDir, pluginShipped+".sock")).NewConfigManagementPluginClient()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stream, err := client.MatchRepository(ctx, grpc_retry.Disable())
	if err != nil {
		t.Fatal(err)
	}
	appPath := filepath.Join(repoRoot, path)
	if err := cmp.SendRepoStream(stream.Context(), appPath, repoRoot, stream, env, nil); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestMatchRepository(t *testing.T) {
	base := []string{"ARGOCD_APP_NAME=x", "ARGOCD_APP_SOURCE_REPO_URL=" + repoURL, "ARGOCD_APP_SOURCE_TARGET_REVISION=main"}
	cases := []struct {
		path      string
		pluginSet bool // the Application has a spec.source.plugin block
		want      bool
	}{
		{"examples/apps/routing/gateways", false, true},        // .routeguard.yaml
		{"examples/apps/reviews", false, false},                // workloads and Services only
		{"examples/broken/dangling-service", false, true},      // HTTPRoute
		{"examples/apps/edge", false, true},                    // Ingress in the chart's templates
		{"examples/apps/backend", false, false},                // a chart without routing
		{"examples/apps/frontend/overlays/prod", false, false}, // routing-free overlay
		{"examples/apps/backend", true, true},                  // plugin block: claimed
	}
	for _, c := range cases {
		env := append(append([]string{}, base...), "ARGOCD_APP_SOURCE_PATH="+c.path)
		if c.pluginSet {
			env = append(env, "ARGOCD_APP_PARAMETERS=null")
		}
		resp := matchRepository(t, c.path, env)
		if resp.IsSupported != c.want || !resp.IsDiscoveryEnabled {
			t.Errorf("%s (plugin block %v): supported %v, discovery enabled %v; want %v, true", c.path, c.pluginSet, resp.IsSupported, resp.IsDiscoveryEnabled, c.want)
		}
	}
}

// TestDiscoveryThroughRepoServer: an Application without a plugin block is
// given to routeguard by Argo CD's own discovery when it holds routing, and
// stays a plain directory app when it does not.
func TestDiscoveryThroughRepoServer(t *testing.T) {
	src := &v1alpha1.ApplicationSource{RepoURL: repoURL, Path: "examples/broken/dangling-service", TargetRevision: "main"}
	_, err := generate(t, app{name: "discovered", namespace: "checkout", path: src.Path, source: src})
	if err == nil || !strings.Contains(err.Error(), "RG1101 error HTTPRoute checkout/cart") {
		t.Errorf("discovered broken app: %v; want routeguard's report", err)
	}
	src = &v1alpha1.ApplicationSource{RepoURL: repoURL, Path: "examples/apps/reviews", TargetRevision: "main"}
	resp, err := generate(t, app{name: "plain", namespace: "shop", path: src.Path, source: src})
	if err != nil {
		t.Fatal(err)
	}
	if resp.SourceType != string(v1alpha1.ApplicationSourceTypeDirectory) {
		t.Errorf("an app without routing got source type %q, want Directory (Argo CD's own rendering)", resp.SourceType)
	}
	// Naming the plugin goes straight to its socket.
	_, _, err = discovery.DetectConfigManagementPlugin(requestContext(t), filepath.Join(repoRoot, "examples/apps/backend"), repoRoot, pluginShipped,
		[]string{"ARGOCD_APP_PARAMETERS=null"}, nil)
	if err != nil {
		t.Errorf("named plugin not found for an app with a plugin block: %v", err)
	}
}

func TestParametersAnnouncement(t *testing.T) {
	byName := func(t *testing.T, a app) map[string]map[string]any {
		t.Helper()
		list, err := announce(t, a)
		if err != nil {
			t.Fatalf("GetParametersAnnouncement: %v", err)
		}
		out := map[string]map[string]any{}
		for _, p := range list {
			out[p.Name] = map[string]any{"collectionType": p.CollectionType, "string": p.String_, "array": p.Array, "map": p.Map, "title": p.Title}
		}
		return out
	}
	helm := byName(t, app{name: "backend-prod", path: "examples/apps/backend", plugin: &v1alpha1.ApplicationSourcePlugin{Name: pluginShipped}})
	for _, want := range []string{"fail-on", "report", "values-files", "helm-parameters", "release-name"} {
		if _, ok := helm[want]; !ok {
			t.Errorf("Helm app: %s not announced (got %v)", want, helm)
		}
	}
	if helm["values-files"]["collectionType"] != "array" || helm["helm-parameters"]["map"].(map[string]string)["replicaCount"] != "2" {
		t.Errorf("Helm announcements: %v", helm)
	}
	istio := byName(t, app{name: "routing-istio", path: "examples/apps/routing/istio", plugin: &v1alpha1.ApplicationSourcePlugin{Name: pluginShipped}})
	if got := istio["weights"]["map"].(map[string]string)["reviews"]; got != "blue 90, green 10" {
		t.Errorf("current weights %q, want %q", got, "blue 90, green 10")
	}
	moved := byName(t, app{name: "routing-istio", path: "examples/apps/routing/istio", plugin: &v1alpha1.ApplicationSourcePlugin{Name: pluginShipped,
		Parameters: v1alpha1.ApplicationSourcePluginParameters{mapParam("weights", map[string]string{"reviews": "blue 0, green 100"})}}})
	if got := moved["weights"]["map"].(map[string]string)["reviews"]; got != "blue 0, green 100" {
		t.Errorf("weights after the parameter %q", got)
	}
	if _, ok := istio["values-files"]; ok {
		t.Error("a directory app was offered Helm values files")
	}
}
