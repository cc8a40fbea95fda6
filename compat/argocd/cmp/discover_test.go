package cmpcompat

import (
	"path/filepath"
	"strings"
	"testing"

	grpc_retry "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/retry"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/argoproj/argo-cd/v3/cmpserver/apiclient"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/reposerver/repository"
	"github.com/argoproj/argo-cd/v3/util/app/discovery"
	"github.com/argoproj/argo-cd/v3/util/cmp"
)

// matchRepository calls MatchRepository on the routeguard-v1 socket of socks.
func matchRepository(t *testing.T, socks, path string, env []string) *apiclient.RepositoryResponse {
	t.Helper()
	ctx := requestContext(t)
	conn, client, err := apiclient.NewConfigManagementPluginClientSet(filepath.Join(socks, pluginShipped+".sock")).NewConfigManagementPluginClient()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cfg, err := client.CheckPluginConfiguration(ctx, &emptypb.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	if want := socks == optInSockDir; cfg.IsDiscoveryConfigured != want {
		t.Errorf("%s: discovery configured %v, want %v", socks, cfg.IsDiscoveryConfigured, want)
	}
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

// coexistCases are the apps of testdata/coexist and examples with the
// source type Argo CD's discovery must give them when routeguard's sidecar
// is the only one installed: as shipped, and with the opt-in rule.
var coexistCases = []struct {
	path           string
	shipped, optIn v1alpha1.ApplicationSourceType
}{
	{"coexist/helm-ingress", v1alpha1.ApplicationSourceTypeHelm, v1alpha1.ApplicationSourceTypeHelm},
	{"coexist/kustomize-plain", v1alpha1.ApplicationSourceTypeKustomize, v1alpha1.ApplicationSourceTypeKustomize},
	{"coexist/config-only", v1alpha1.ApplicationSourceTypeDirectory, v1alpha1.ApplicationSourceTypeDirectory},
	{"coexist/marker-below", v1alpha1.ApplicationSourceTypeDirectory, v1alpha1.ApplicationSourceTypeDirectory},
	{"coexist/marked", v1alpha1.ApplicationSourceTypeDirectory, v1alpha1.ApplicationSourceTypePlugin},
	{"coexist/marked-chart", v1alpha1.ApplicationSourceTypeHelm, v1alpha1.ApplicationSourceTypePlugin},
	{"examples/apps/edge", v1alpha1.ApplicationSourceTypeKustomize, v1alpha1.ApplicationSourceTypeKustomize},             // Ingress in a chart's templates
	{"examples/apps/routing/gateways", v1alpha1.ApplicationSourceTypeDirectory, v1alpha1.ApplicationSourceTypeDirectory}, // .routeguard.yaml and routes
	{"examples/broken/dangling-service", v1alpha1.ApplicationSourceTypeDirectory, v1alpha1.ApplicationSourceTypeDirectory},
}

// TestMatchRepository: the cmp-server's own MatchRepository with the shipped
// plugin.yaml reports no discovery at all; with the opt-in rule it matches
// only the marker at the app's root, and any app whose Application has a
// plugin block (Argo CD asks a discovering plugin that an Application names,
// and refuses the name when it says no).
func TestMatchRepository(t *testing.T) {
	base := []string{"ARGOCD_APP_NAME=x", "ARGOCD_APP_SOURCE_REPO_URL=" + repoURL, "ARGOCD_APP_SOURCE_TARGET_REVISION=main"}
	for _, c := range coexistCases {
		env := append(append([]string{}, base...), "ARGOCD_APP_SOURCE_PATH="+c.path)
		if resp := matchRepository(t, installedSockDir, c.path, env); resp.IsSupported || resp.IsDiscoveryEnabled {
			t.Errorf("shipped plugin.yaml, %s: supported %v, discovery enabled %v; want neither", c.path, resp.IsSupported, resp.IsDiscoveryEnabled)
		}
		want := c.optIn == v1alpha1.ApplicationSourceTypePlugin
		if resp := matchRepository(t, optInSockDir, c.path, env); resp.IsSupported != want || !resp.IsDiscoveryEnabled {
			t.Errorf("opt-in rule, %s: supported %v, discovery enabled %v; want %v, true", c.path, resp.IsSupported, resp.IsDiscoveryEnabled, want)
		}
		named := append(env, "ARGOCD_APP_PARAMETERS=null")
		if resp := matchRepository(t, optInSockDir, c.path, named); !resp.IsSupported {
			t.Errorf("opt-in rule, %s with a plugin block: not supported", c.path)
		}
	}
}

// TestCoexistence: installing routeguard's sidecar takes no app from Argo
// CD's own tools. Argo CD's own discovery (util/app/discovery, through the
// repo-server's GetAppSourceType) with the shipped plugin.yaml gives a Helm
// chart with an Ingress template to Helm, a Kustomize app with an Ingress to
// Kustomize and a directory of routes (with a .routeguard.yaml) to its
// directory source; with the opt-in rule only the apps holding the marker
// move to routeguard. The Kustomize app then generates through Argo CD's
// Kustomize, the marked app through routeguard.
func TestCoexistence(t *testing.T) {
	for _, installed := range []struct {
		name  string
		socks string
	}{{"shipped", installedSockDir}, {"opt-in", optInSockDir}} {
		t.Run(installed.name, func(t *testing.T) {
			t.Setenv("ARGOCD_PLUGINSOCKFILEPATH", installed.socks)
			for _, c := range coexistCases {
				want := c.shipped
				if installed.socks == optInSockDir {
					want = c.optIn
				}
				src := &v1alpha1.ApplicationSource{RepoURL: repoURL, Path: c.path, TargetRevision: "main"}
				env := []string{"ARGOCD_APP_NAME=x", "ARGOCD_APP_SOURCE_PATH=" + c.path, "ARGOCD_APP_SOURCE_REPO_URL=" + repoURL}
				got, err := repository.GetAppSourceType(requestContext(t), src, filepath.Join(repoRoot, c.path), repoRoot, "x", nil, nil, env)
				if err != nil {
					t.Errorf("%s: %v", c.path, err)
					continue
				}
				if got != want {
					t.Errorf("%s: Argo CD's discovery gives it to %s, want %s", c.path, got, want)
				}
			}
			src := &v1alpha1.ApplicationSource{RepoURL: repoURL, Path: "coexist/kustomize-plain", TargetRevision: "main"}
			resp, err := generate(t, app{name: "web", namespace: "shop", path: src.Path, source: src})
			if err != nil {
				t.Fatal(err)
			}
			if resp.SourceType != string(v1alpha1.ApplicationSourceTypeKustomize) || len(resp.Manifests) != 2 {
				t.Errorf("kustomize-plain: source type %s, %d manifests; want Argo CD's Kustomize, 2", resp.SourceType, len(resp.Manifests))
			}
			src = &v1alpha1.ApplicationSource{RepoURL: repoURL, Path: "coexist/marked", TargetRevision: "main"}
			resp, err = generate(t, app{name: "marked", namespace: "shop", path: src.Path, source: src})
			if err != nil {
				t.Fatal(err)
			}
			wantType := v1alpha1.ApplicationSourceTypeDirectory
			if installed.socks == optInSockDir {
				wantType = v1alpha1.ApplicationSourceTypePlugin
			}
			if resp.SourceType != string(wantType) || len(resp.Manifests) != 2 {
				t.Errorf("marked: source type %s, %d manifests; want %s, 2", resp.SourceType, len(resp.Manifests), wantType)
			}
			// An Application naming the plugin gets it either way, with or
			// without the marker.
			resp, err = generate(t, app{name: "backend-prod", namespace: "shop-prod", path: "examples/apps/backend", plugin: &v1alpha1.ApplicationSourcePlugin{Name: pluginShipped}})
			if err != nil {
				t.Fatalf("named plugin: %v", err)
			}
			if resp.SourceType != string(v1alpha1.ApplicationSourceTypePlugin) || len(resp.Manifests) == 0 {
				t.Errorf("named plugin: source type %s, %d manifests", resp.SourceType, len(resp.Manifests))
			}
			// The name without the version is not routeguard's any more.
			_, _, err = discovery.DetectConfigManagementPlugin(requestContext(t), filepath.Join(repoRoot, "examples/apps/backend"), repoRoot, "routeguard",
				[]string{"ARGOCD_APP_PARAMETERS=null"}, nil)
			if err == nil || !strings.Contains(err.Error(), `could not find cmp-server plugin with name "routeguard"`) {
				t.Errorf("plugin name routeguard (before v1): %v; want Argo CD's not-found error", err)
			}
		})
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
