package pluginhost

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/registry"
	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/manifest"
)

const appYAML = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports: [{port: 80}]
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: shop
data:
  password: aHVudGVyMg==
`

func decodeSet(t *testing.T, file, yaml string) *manifest.Set {
	t.Helper()
	objs, err := manifest.Decode(file, []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	set := manifest.NewSet()
	if err := set.AddAll(objs); err != nil {
		t.Fatal(err)
	}
	return set
}

func sha(t *testing.T, path string) string {
	t.Helper()
	s, err := fileSHA256(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// env is a fake routeguard environment, as the Argo CD CMP sets it.
var env = map[string]string{
	"PATH": "/usr/bin:/bin", "HOME": "/home/argocd", "TMPDIR": "/tmp",
	"ARGOCD_APP_NAME": "shop", "ARGOCD_ENV_TEAM": "shop", "GITHUB_TOKEN": "ghp_secret",
	"GIT_PASSWORD": "hunter2", "AWS_SECRET_ACCESS_KEY": "xyz",
}

// run analyzes set with the built-in analyzers and the plugins of p.
func run(t *testing.T, set *manifest.Set, p *config.Plugins) (*analysis.Result, *Session) {
	t.Helper()
	s, err := Load(Options{Catalog: p, CatalogFile: "/etc/routeguard/catalog.yaml", Config: selectAll(p), ConfigFile: ".routeguard.yaml",
		Set: set, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	res, err := analysis.RunAnalyzers(context.Background(), analysis.RunOptions{Set: set,
		Analyzers: append(registry.All(), s.Analyzers()...)})
	if err != nil {
		t.Fatalf("the run failed (a plugin failure must not fail the runner): %v", err)
	}
	return res, s
}

// selectAll is a repository's selection of every item of the catalog p.
func selectAll(p *config.Plugins, extra ...string) *config.Plugins {
	sel := &config.Plugins{}
	for _, it := range p.Items {
		sel.Items = append(sel.Items, config.Plugin{Name: it.Name})
	}
	for _, n := range extra {
		sel.Items = append(sel.Items, config.Plugin{Name: n})
	}
	return sel
}

func item(path, mode string) config.Plugin {
	return config.Plugin{Name: "tp", Path: path, SHA256: shaCache(path), Config: map[string]any{"mode": mode}}
}

var shas = map[string]string{}

func shaCache(path string) string {
	recordPluginSources()
	if s, ok := shas[path]; ok {
		return s
	}
	s, _ := fileSHA256(path)
	shas[path] = s
	return s
}

func codesOf(fs []analysis.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code+" "+f.Object.String()+" "+f.Source.String())
	}
	return out
}

// failure returns the one failure of s and checks the built-in findings
// survived it.
func failure(t *testing.T, res *analysis.Result, s *Session) Failure {
	t.Helper()
	if !slices.ContainsFunc(res.Findings, func(f analysis.Finding) bool { return f.Code == analysis.CodePlainSecret }) {
		t.Errorf("built-in findings lost: %v", codesOf(res.Findings))
	}
	fs := s.Failures()
	if len(fs) != 1 {
		t.Fatalf("failures = %v, want one", fs)
	}
	if !strings.HasPrefix(fs[0].Error(), "plugin plugin.tp: ") {
		t.Errorf("failure does not name the plugin: %v", fs[0])
	}
	return fs[0]
}

func TestFindingsReturned(t *testing.T) {
	set := decodeSet(t, "apps/shop/all.yaml", appYAML)
	res, s := run(t, set, &config.Plugins{Items: []config.Plugin{item(bins.test, "ok")}})
	if fs := s.Failures(); len(fs) != 0 {
		t.Fatalf("failures: %v", fs)
	}
	got := codesOf(res.Findings)
	want := []string{"TP001 Service default/web apps/shop/all.yaml:1", "RG4001 Secret shop/creds apps/shop/all.yaml:8"}
	if !slices.Equal(got, want) {
		t.Fatalf("findings:\n got %q\nwant %q", got, want)
	}
	f := res.Findings[0]
	if f.Severity != analysis.SeverityWarning || f.Analyzer != "plugin.tp" || f.Message != "Service web seen" {
		t.Errorf("plugin finding = %+v", f)
	}
	if !slices.Contains(res.Analyzers, "plugin.tp") {
		t.Errorf("analyzers = %v", res.Analyzers)
	}
}

func TestSeverityOverrideAndSuppressionApply(t *testing.T) {
	set := decodeSet(t, "a.yaml", appYAML)
	cat := &config.Plugins{Items: []config.Plugin{item(bins.test, "ok")}}
	s, err := Load(Options{Catalog: cat, Config: selectAll(cat), Set: set})
	if err != nil {
		t.Fatal(err)
	}
	cfg := analysis.Settings{Severity: map[string]analysis.Severity{"TP001": analysis.SeverityError}}
	res, err := analysis.RunAnalyzers(context.Background(), analysis.RunOptions{Set: set, Config: cfg, Analyzers: s.Analyzers()})
	if err != nil || len(res.Findings) != 1 || res.Findings[0].Severity != analysis.SeverityError {
		t.Fatalf("override: %v %+v", err, res)
	}
	cfg = analysis.Settings{Suppress: []analysis.Suppression{{Code: "TP*", Object: "Service default/web"}}}
	res, err = analysis.RunAnalyzers(context.Background(), analysis.RunOptions{Set: set, Config: cfg, Analyzers: s.Analyzers()})
	if err != nil || len(res.Findings) != 0 || res.Suppressed != 1 {
		t.Fatalf("suppression: %v %+v", err, res)
	}
}

func TestCrash(t *testing.T) {
	res, s := run(t, decodeSet(t, "a.yaml", appYAML), &config.Plugins{Items: []config.Plugin{item(bins.test, "crash")}})
	f := failure(t, res, s)
	if msg := f.Err.Error(); !strings.Contains(msg, "exited unexpectedly") || !strings.Contains(msg, "panic: testplugin crashed on purpose") {
		t.Errorf("crash error = %v", msg)
	}
	if !f.FailRun || s.Err() == nil {
		t.Error("a crash must fail the run by default (onError: fail)")
	}
}

func TestHangPastDeadline(t *testing.T) {
	p := &config.Plugins{Timeout: "1s", Items: []config.Plugin{item(bins.test, "hang")}}
	res, s := run(t, decodeSet(t, "a.yaml", appYAML), p)
	f := failure(t, res, s)
	if !strings.Contains(f.Err.Error(), "analyze: no answer within 1s (plugins.timeout); the plugin was stopped") {
		t.Errorf("hang error = %v", f.Err)
	}
}

func TestChecksumMismatch(t *testing.T) {
	it := item(bins.test, "ok")
	it.SHA256 = strings.Repeat("0", 64)
	res, s := run(t, decodeSet(t, "a.yaml", appYAML), &config.Plugins{Items: []config.Plugin{it}})
	f := failure(t, res, s)
	want := "refused to run " + bins.test + ": its sha256 is " + sha(t, bins.test) + ", but " + it.SHA256 + " is pinned"
	if !strings.Contains(f.Err.Error(), want) {
		t.Errorf("error = %v\nwant %s", f.Err, want)
	}
	if slices.ContainsFunc(res.Findings, func(f analysis.Finding) bool { return f.Code == "TP001" }) {
		t.Error("the refused plugin ran")
	}
}

func TestInsecureSkipVerifyRuns(t *testing.T) {
	it := item(bins.test, "ok")
	it.SHA256 = ""
	res, s := run(t, decodeSet(t, "a.yaml", appYAML), &config.Plugins{InsecureSkipVerify: true, Items: []config.Plugin{it}})
	if len(s.Failures()) != 0 || !slices.ContainsFunc(res.Findings, func(f analysis.Finding) bool { return f.Code == "TP001" }) {
		t.Fatalf("failures %v findings %v", s.Failures(), codesOf(res.Findings))
	}
}

func TestWrongProtocolVersion(t *testing.T) {
	res, s := run(t, decodeSet(t, "a.yaml", appYAML), &config.Plugins{Items: []config.Plugin{item(bins.testOld, "ok")}})
	f := failure(t, res, s)
	if msg := f.Err.Error(); !strings.Contains(msg, "starting: the plugin speaks another protocol version") ||
		!strings.Contains(msg, "Plugin version: 1") || !strings.Contains(msg, "(protocol 2)") {
		t.Errorf("error = %v", msg)
	}
}

func TestUndeclaredCodes(t *testing.T) {
	res, s := run(t, decodeSet(t, "a.yaml", appYAML), &config.Plugins{Items: []config.Plugin{item(bins.test, "undeclared")}})
	f := failure(t, res, s)
	if !strings.Contains(f.Err.Error(), `reported code "XX999", which it does not declare (declared: TP001, TP002)`) {
		t.Errorf("error = %v", f.Err)
	}
	if slices.ContainsFunc(res.Findings, func(f analysis.Finding) bool { return f.Analyzer == "plugin.tp" }) {
		t.Error("findings of a plugin that broke its declaration were kept")
	}
}

func TestEnvironmentScrubbed(t *testing.T) {
	// routeguard's own process environment must not leak either (go-plugin
	// appends os.Environ() unless told not to).
	t.Setenv("ARGOCD_ENV_SECRET", "leak")
	t.Setenv("SOME_TOKEN", "leak")
	res, s := run(t, decodeSet(t, "a.yaml", appYAML), &config.Plugins{Items: []config.Plugin{item(bins.test, "env")}})
	if len(s.Failures()) != 0 {
		t.Fatal(s.Failures())
	}
	var names []string
	for _, f := range res.Findings {
		if f.Code == "TP002" {
			k, _, _ := strings.Cut(f.Message, "=")
			names = append(names, k)
		}
	}
	want := []string{"HOME", "PATH", "PLUGIN_MAX_PORT", "PLUGIN_MIN_PORT", "PLUGIN_PROTOCOL_VERSIONS", "ROUTEGUARD_PLUGIN", "ROUTEGUARD_PLUGIN_SESSION", "TMPDIR"}
	if !slices.Equal(names, want) {
		t.Fatalf("the plugin saw %v, want only %v", names, want)
	}
	for _, f := range res.Findings {
		if f.Message == "HOME=/home/argocd" {
			return
		}
	}
	t.Error("HOME was not passed through from routeguard's environment")
}

func TestOnErrorWarnGoesOn(t *testing.T) {
	it := item(bins.test, "undeclared")
	it.OnError = "warn"
	res, s := run(t, decodeSet(t, "a.yaml", appYAML), &config.Plugins{Items: []config.Plugin{it}})
	f := failure(t, res, s)
	if f.FailRun || s.Err() != nil {
		t.Fatal("onError: warn must not fail the run")
	}
	var b strings.Builder
	if s.Report(&b) {
		t.Error("Report says the run fails")
	}
	if !strings.Contains(b.String(), "routeguard: warning: plugin plugin.tp: ") || !strings.Contains(b.String(), "going on without it") {
		t.Errorf("report = %q", b.String())
	}
}

func TestPluginDirectory(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(bins.test)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"pinned", "unpinned"} {
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("not a plugin"), 0o644)
	sums := sha(t, bins.test) + "  pinned\n"
	if err := os.WriteFile(filepath.Join(dir, SumsFile), []byte(sums), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &config.Plugins{Dir: dir, Items: []config.Plugin{{Name: "pinned", Config: map[string]any{"mode": "ok"}}}}
	s, err := Load(Options{Catalog: p, CatalogFile: "c.yaml", Config: selectAll(p, "unpinned"), Set: decodeSet(t, "a.yaml", appYAML)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := analysis.RunAnalyzers(context.Background(), analysis.RunOptions{Set: decodeSet(t, "a.yaml", appYAML), Analyzers: append(registry.All(), s.Analyzers()...)})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Findings, func(f analysis.Finding) bool { return f.Analyzer == "plugin.pinned" && f.Code == "TP001" }) {
		t.Errorf("the pinned plugin did not report: %v", codesOf(res.Findings))
	}
	fs := s.Failures()
	if len(fs) != 1 || fs[0].Plugin != "plugin.unpinned" || !strings.Contains(fs[0].Err.Error(), "SHA256SUMS does not list it") {
		t.Errorf("failures = %v, want unpinned refused", fs)
	}

	os.Remove(filepath.Join(dir, SumsFile))
	if _, err := Load(Options{Catalog: p, CatalogFile: "c.yaml"}); err == nil || !strings.Contains(err.Error(), "has no SHA256SUMS") {
		t.Errorf("missing SHA256SUMS: %v", err)
	}
	p.Items[0].Name = "elsewhere"
	if _, err := Load(Options{Catalog: &config.Plugins{Dir: dir, InsecureSkipVerify: true, Items: p.Items}, CatalogFile: "c.yaml"}); err == nil ||
		!strings.Contains(err.Error(), "c.yaml: plugin elsewhere has no path and is not in plugins.dir") {
		t.Errorf("unknown dir plugin: %v", err)
	}
}

// TestSelectionOnly: a catalog plugin runs when the repository selects it
// or the catalog says always; a selected plugin the catalog lacks fails
// (or warns) without running anything.
func TestSelectionOnly(t *testing.T) {
	set := decodeSet(t, "a.yaml", appYAML)
	cat := &config.Plugins{Items: []config.Plugin{item(bins.test, "ok")}}
	s, err := Load(Options{Catalog: cat, CatalogFile: "c.yaml", Set: set})
	if err != nil || len(s.Analyzers()) != 0 {
		t.Fatalf("unselected catalog plugin loaded: %v %v", s.Analyzers(), err)
	}
	cat.Items[0].Always = true
	if s, err = Load(Options{Catalog: cat, CatalogFile: "c.yaml", Set: set}); err != nil || len(s.Analyzers()) != 1 {
		t.Fatalf("always plugin not loaded: %v %v", s.Analyzers(), err)
	}
	sel := &config.Plugins{OnError: "warn", Items: []config.Plugin{{Name: "not-installed"}}}
	s, err = Load(Options{Catalog: cat, CatalogFile: "c.yaml", Config: sel, ConfigFile: ".routeguard.yaml", Set: set})
	if err != nil {
		t.Fatal(err)
	}
	res, err := analysis.RunAnalyzers(context.Background(), analysis.RunOptions{Set: set, Analyzers: append(registry.All(), s.Analyzers()...)})
	if err != nil {
		t.Fatal(err)
	}
	fs := s.Failures()
	if len(fs) != 1 || fs[0].FailRun || !strings.Contains(fs[0].Err.Error(), "not installed here: the plugin catalog c.yaml does not list it") {
		t.Fatalf("failures %v", fs)
	}
	if !slices.ContainsFunc(res.Findings, func(f analysis.Finding) bool { return f.Analyzer == "plugin.tp" }) {
		t.Fatalf("the always plugin did not run beside the failure: %v", codesOf(res.Findings))
	}
}

// TestNoDescendantSurvivesTheDeadline: a plugin that starts a grandchild in
// a session of its own (out of its process group) and then hangs is
// stopped at its deadline with everything it started.
func TestNoDescendantSurvivesTheDeadline(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "daemon.pid")
	it := item(bins.test, "daemonize")
	it.Config["pidFile"] = pidFile
	res, s := run(t, decodeSet(t, "a.yaml", appYAML), &config.Plugins{Timeout: "2s", Items: []config.Plugin{it}})
	f := failure(t, res, s)
	if !strings.Contains(f.Err.Error(), "no answer within 2s") {
		t.Fatalf("failure %v", f)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the grandchild never started: %v", err)
	}
	pid, _ := strconv.Atoi(string(data))
	if pid <= 0 {
		t.Fatalf("pid file %q", data)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the plugin's detached grandchild %d survived the deadline", pid)
	}
}
