package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/health"
)

func runHealthCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	code = Execute(context.Background(), append([]string{"health"}, args...), env)
	return code, out.String(), errb.String()
}

func TestHealthCheckCommand(t *testing.T) {
	fixture := func(p string) string { return filepath.Join("..", "..", "lua-health", p) }
	tests := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		contains []string
	}{
		{
			name: "rejecting parent from a file",
			args: []string{"check", fixture("gateway.networking.k8s.io/HTTPRoute/testdata/degraded_oneParentRejects.yaml")},
			code: ExitFindings,
			contains: []string{
				"HTTPRoute apps/web (",
				"  argocd (Lua): Degraded: Gateway infra/internal: Accepted=False (NotAllowedByListeners): No listener allows routes from namespace apps\n",
				"  flux (CEL):   Failed\n",
			},
		},
		{
			name:  "istio without status from stdin, plus a kind without a check",
			args:  []string{"check", "-"},
			stdin: "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: web, namespace: apps}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: apps}\n",
			code:  ExitOK,
			contains: []string{
				"VirtualService apps/web (<stdin>:1)\n  argocd (Lua): Healthy: no status reported",
				"  flux (CEL):   Unknown: cannot evaluate: no such attribute(s): status; kustomize-controller keeps waiting until its timeout\n",
				"Service apps/web (<stdin>:5)\n  no routeguard health check for Service in group \"\"\n",
			},
		},
		{
			name:  "kubectl List as JSON, stale generation",
			args:  []string{"check", "-"},
			stdin: `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"networking.istio.io/v1","kind":"DestinationRule","metadata":{"name":"web","namespace":"apps","generation":3},"status":{"observedGeneration":2}}]}`,
			code:  ExitOK,
			contains: []string{
				"DestinationRule apps/web (<stdin>:1)\n  argocd (Lua): Progressing: waiting for Istio to process generation 3 (status is for generation 2)\n  flux (CEL):   InProgress\n",
			},
		},
		{
			name:     "healthy gateway",
			args:     []string{"check", fixture("gateway.networking.k8s.io/Gateway/testdata/healthy_programmed.yaml")},
			code:     ExitOK,
			contains: []string{"argocd (Lua): Healthy: Gateway accepted and programmed; listeners ready: http, https\n", "flux (CEL):   Current\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runHealthCmd(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tt.code, errOut)
			}
			for _, want := range tt.contains {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

func TestHealthCommandErrors(t *testing.T) {
	tests := []struct {
		name, stdin, wantErr string
		args                 []string
	}{
		{name: "missing file", args: []string{"check", "no/such.yaml"}, wantErr: "no/such.yaml"},
		{name: "bad yaml names the line", args: []string{"check", "-"}, stdin: "apiVersion: v1\nkind: [\n", wantErr: "<stdin>:"},
		{name: "no --for", args: []string{"bundle"}, wantErr: "--for is required"},
		{name: "unknown target", args: []string{"bundle", "--for", "kubectl"}, wantErr: `--for "kubectl" is not argocd or flux`},
		{name: "bad format", args: []string{"bundle", "--for", "argocd", "--format", "json"}, wantErr: `--format "json"`},
		{name: "unknown subcommand", args: []string{"lint"}, wantErr: `unknown command "lint" for "routeguard health"`},
		{name: "namespace for flux", args: []string{"bundle", "--for", "flux", "--namespace", "x"}, wantErr: "--namespace is for --for argocd"},
		{name: "argocd version for flux", args: []string{"bundle", "--for", "flux", "--argocd-version", "3.5"}, wantErr: "--argocd-version and --override-builtin are for --for argocd"},
		{name: "override builtin for flux", args: []string{"bundle", "--for", "flux", "--override-builtin"}, wantErr: "--argocd-version and --override-builtin are for --for argocd"},
		{name: "bad argocd version", args: []string{"bundle", "--for", "argocd", "--argocd-version", "latest"}, wantErr: `--argocd-version: Argo CD version "latest": want a release such as 3.5 or v3.5.7`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runHealthCmd(t, tt.stdin, tt.args...)
			if code != ExitError || out != "" || !strings.Contains(errOut, tt.wantErr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2, no stdout, stderr with %q", code, out, errOut, tt.wantErr)
			}
		})
	}
}

// argocdBundleKeys decodes an argocd-cm patch and returns its data.
func argocdBundleKeys(t *testing.T, patch string) map[string]string {
	t.Helper()
	var cm struct {
		Kind string            `json:"kind"`
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal([]byte(patch), &cm); err != nil {
		t.Fatal(err)
	}
	if cm.Kind != "ConfigMap" {
		t.Fatalf("kind %q, want ConfigMap", cm.Kind)
	}
	return cm.Data
}

// TestHealthBundleArgoCDBuiltins: by default the kinds the tested Argo CD
// release checks itself are left out, and stderr says which; older releases
// and --override-builtin get them.
func TestHealthBundleArgoCDBuiltins(t *testing.T) {
	const httpRoute = "resource.customizations.health.gateway.networking.k8s.io_HTTPRoute"
	const backendTLS = "resource.customizations.health.gateway.networking.k8s.io_BackendTLSPolicy"
	const tcpRoute = "resource.customizations.health.gateway.networking.k8s.io_TCPRoute"
	tests := []struct {
		args              []string
		httpRoute, btls   bool
		stderr, notStderr string
	}{
		{args: nil, stderr: "routeguard health bundle: left out gateway.networking.k8s.io/BackendTLSPolicy, gateway.networking.k8s.io/GRPCRoute, gateway.networking.k8s.io/Gateway, gateway.networking.k8s.io/HTTPRoute: Argo CD 3.5 has built-in health checks"},
		{args: []string{"--argocd-version", "v3.4.13"}, btls: true, stderr: "left out gateway.networking.k8s.io/GRPCRoute, gateway.networking.k8s.io/Gateway, gateway.networking.k8s.io/HTTPRoute: Argo CD 3.4 has"},
		{args: []string{"--argocd-version", "2.14"}, httpRoute: true, btls: true, notStderr: "left out"},
		{args: []string{"--override-builtin"}, httpRoute: true, btls: true, stderr: "these argocd-cm keys replace Argo CD 3.5's built-in health checks", notStderr: "left out"},
		{args: []string{"--argocd-version", "3.6", "--format", "helm"}, stderr: "Argo CD 3.6 is newer than " + health.TestedArgoCDVersion},
		{args: []string{"--argocd-version", "3.7"}, stderr: "assuming they are those of " + health.LatestKnownArgoCDVersion},
	}
	for _, tt := range tests {
		code, out, errOut := runHealthCmd(t, "", append([]string{"bundle", "--for", "argocd"}, tt.args...)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", tt.args, code, errOut)
		}
		var data map[string]string
		if len(tt.args) > 2 && tt.args[2] == "--format" {
			var v struct {
				Configs struct {
					CM map[string]string `json:"cm"`
				} `json:"configs"`
			}
			if err := yaml.Unmarshal([]byte(out), &v); err != nil {
				t.Fatal(err)
			}
			data = v.Configs.CM
		} else {
			data = argocdBundleKeys(t, out)
		}
		_, hasHTTP := data[httpRoute]
		_, hasBTLS := data[backendTLS]
		if hasHTTP != tt.httpRoute || hasBTLS != tt.btls || data[tcpRoute] == "" {
			t.Errorf("%v: HTTPRoute %v, BackendTLSPolicy %v, TCPRoute %v; want %v, %v, true", tt.args, hasHTTP, hasBTLS, data[tcpRoute] != "", tt.httpRoute, tt.btls)
		}
		if !strings.Contains(errOut, tt.stderr) || (tt.notStderr != "" && strings.Contains(errOut, tt.notStderr)) {
			t.Errorf("%v: stderr %q, want %q and not %q", tt.args, errOut, tt.stderr, tt.notStderr)
		}
	}
}

func TestHealthBundleCommand(t *testing.T) {
	code, patch, _ := runHealthCmd(t, "", "bundle", "--for", "argocd", "--override-builtin")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	lua, err := os.ReadFile(filepath.Join("..", "..", "lua-health", "gateway.networking.k8s.io", "HTTPRoute", "health.lua"))
	if err != nil {
		t.Fatal(err)
	}
	if argocdBundleKeys(t, patch)["resource.customizations.health.gateway.networking.k8s.io_HTTPRoute"] != string(lua) {
		t.Fatal("argocd bundle does not carry lua-health/gateway.networking.k8s.io/HTTPRoute/health.lua under its argocd-cm key")
	}
	if strings.Contains(patch, "namespace:") {
		t.Fatal("the default patch must not name a namespace (Argo CD's install.yaml has none)")
	}
	code, withNS, _ := runHealthCmd(t, "", "bundle", "--for", "argocd", "--namespace", "argocd")
	if code != ExitOK || !strings.Contains(withNS, "metadata:\n  name: argocd-cm\n  namespace: argocd\n") {
		t.Fatalf("--namespace argocd: exit %d, no namespace in metadata", code)
	}
	_, again, _ := runHealthCmd(t, "", "bundle", "--for", "argocd", "--override-builtin")
	if again != patch {
		t.Fatal("two runs of the bundle differ")
	}
	code, flux, _ := runHealthCmd(t, "", "bundle", "--for", "flux")
	if code != ExitOK || !strings.Contains(flux, "healthCheckExprs:\n") || strings.Contains(flux, "networking.istio.io/v1") {
		t.Fatalf("flux bundle: exit %d, want healthCheckExprs without Istio kinds:\n%s", code, flux)
	}
	code, withIstio, _ := runHealthCmd(t, "", "bundle", "--for", "flux", "--include-istio")
	if code != ExitOK || !strings.Contains(withIstio, "kind: VirtualService\n") {
		t.Fatalf("flux bundle --include-istio: exit %d, no VirtualService", code)
	}
	code, helm, _ := runHealthCmd(t, "", "bundle", "--for", "argocd", "--format", "helm")
	if code != ExitOK || !strings.HasPrefix(helm[strings.Index(helm, "\nconfigs:")+1:], "configs:\n  cm:\n    resource.customizations.health.") {
		t.Fatalf("helm values: exit %d:\n%.300s", code, helm)
	}
}
