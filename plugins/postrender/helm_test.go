// Package postrender_test runs routeguard's Helm 4 post-renderer plugin
// (plugin.yaml in this directory) through Helm's own SDK: plugin discovery,
// the subprocess runtime and the install action's post-render step.
package postrender_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	helmcli "helm.sh/helm/v4/pkg/cli"
	"helm.sh/helm/v4/pkg/postrenderer"
	release "helm.sh/helm/v4/pkg/release/v1"

	"github.com/routeguard/routeguard/internal/cli"
)

const runAsCLI = "ROUTEGUARD_TEST_RUN_AS_CLI"

// TestMain lets the test binary stand in for the routeguard binary: Helm
// runs it (through a symlink named routeguard on PATH) as the plugin command.
func TestMain(m *testing.M) {
	if os.Getenv(runAsCLI) == "1" {
		os.Exit(cli.Execute(context.Background(), os.Args[1:], cli.OSEnv()))
	}
	os.Exit(m.Run())
}

// installPlugin puts plugin.yaml into a fresh Helm plugins directory and a
// "routeguard" command on PATH; it returns Helm settings pointing there.
func installPlugin(t *testing.T) *helmcli.EnvSettings {
	t.Helper()
	tmp := t.TempDir()
	data, err := os.ReadFile("plugin.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pdir := filepath.Join(tmp, "plugins", "routeguard")
	if err := os.MkdirAll(pdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pdir, "plugin.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(tmp, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(bin, "routeguard")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv(runAsCLI, "1")
	// Run in an empty directory: no .routeguard.yaml applies.
	t.Chdir(tmp)
	settings := helmcli.New()
	settings.PluginsDirectory = filepath.Join(tmp, "plugins")
	return settings
}

// install renders examples/apps/backend with Helm's install action
// (client-only) and the routeguard plugin as its post-renderer.
func install(t *testing.T, settings *helmcli.EnvSettings, vals map[string]any, args ...string) (string, error) {
	t.Helper()
	pr, err := postrenderer.NewPostRendererPlugin(settings, "routeguard", args...)
	if err != nil {
		t.Fatalf("Helm does not load plugin.yaml as a postrenderer/v1 plugin: %v", err)
	}
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := action.NewConfiguration(action.ConfigurationSetLogger(slog.DiscardHandler))
	in := action.NewInstall(cfg)
	in.DryRunStrategy = action.DryRunClient
	in.ReleaseName = "backend"
	in.Namespace = "shop-prod"
	in.Replace = true
	in.PostRenderer = pr
	rel, err := in.RunWithContext(context.Background(), ch, vals)
	if err != nil {
		return "", err
	}
	return rel.(*release.Release).Manifest, nil
}

var chartDir, _ = filepath.Abs("../../examples/apps/backend")

func TestHelm4PostRendererPlugin(t *testing.T) {
	settings := installPlugin(t)
	vals := map[string]any{"image": map[string]any{"tag": "2.8.1${suffix}"}}

	got, err := install(t, settings, vals, "--var=suffix=-rc1")
	if err != nil {
		t.Fatalf("install with the post-renderer failed: %v", err)
	}
	if !strings.Contains(got, "image: ghcr.io/example/shop-backend:2.8.1-rc1") {
		t.Errorf("variable not substituted through the plugin:\n%s", got)
	}
	if strings.Contains(got, "${suffix}") {
		t.Errorf("placeholder left in the manifest:\n%s", got)
	}

	// Strict mode: an unset variable fails the install, naming it. (As in
	// Flux, substitution runs only when some variable is given.)
	// Helm 4.3.1 discards a plugin's stderr, hence --log-file.
	logFile := filepath.Join(t.TempDir(), "routeguard.log")
	_, err = install(t, settings, vals, "--var=other=x", "--log-file="+logFile)
	if err == nil || !strings.Contains(err.Error(), `plugin "routeguard" exited with error`) {
		t.Fatalf("want Helm to fail the install on routeguard's exit code, got %v", err)
	}
	logged, _ := os.ReadFile(logFile)
	if !strings.Contains(string(logged), `variable not set (strict mode): "suffix"`) {
		t.Fatalf("log file lacks the strict-mode error: %q", logged)
	}
	// --strict=false: Flux's non-strict semantics (unset -> empty).
	got, err = install(t, settings, vals, "--var=other=x", "--strict=false")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "image: ghcr.io/example/shop-backend:2.8.1\n") {
		t.Errorf("non-strict substitution should replace the unset variable with nothing:\n%s", got)
	}

	// The analysis is the gate: "2.8${patch}" with patch unset becomes the
	// label value 2.8, a number where Kubernetes wants a string (RG5006).
	gate := filepath.Join(t.TempDir(), "gate.log")
	_, err = install(t, settings, map[string]any{"image": map[string]any{"tag": "2.8${patch}"}}, "--var=other=x", "--strict=false", "--log-file="+gate)
	if err == nil {
		t.Fatal("want the analysis to refuse the release")
	}
	logged, _ = os.ReadFile(gate)
	if !strings.Contains(string(logged), "RG5006") || !strings.Contains(string(logged), "post-render refused") {
		t.Fatalf("log lacks the finding and the refusal: %q", logged)
	}
}
