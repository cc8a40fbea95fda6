package ci

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// chartRepo serves a Helm chart repository on loopback: index.yaml and
// web-1.0.0.tgz (a Service "web"), counting the requests.
func chartRepo(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range map[string]string{
		"web/Chart.yaml":         "apiVersion: v2\nname: web\nversion: 1.0.0\ntype: application\n",
		"web/templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  ports: [{port: 80}]\n  selector: {app: web}\n",
	} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	archive := buf.Bytes()
	var hits atomic.Int64
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/index.yaml":
			_, _ = w.Write([]byte("apiVersion: v1\nentries:\n  web:\n    - apiVersion: v2\n      name: web\n      version: 1.0.0\n      urls: [" + srv.URL + "/web-1.0.0.tgz]\ngenerated: \"2026-01-01T00:00:00Z\"\n"))
		case "/web-1.0.0.tgz":
			_, _ = w.Write(archive)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// writeChartTree writes, under project, a Flux cluster clusters/c whose
// HelmRelease "web" takes its chart from the chart repository at url.
func writeChartTree(t *testing.T, project, url string) {
	t.Helper()
	p := filepath.Join(project, "clusters", "c", "apps.yaml")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	tree := `apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: {name: charts, namespace: flux-system}
spec: {interval: 1h, url: "` + url + `"}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: web, namespace: shop}
spec:
  interval: 1h
  chart: {spec: {chart: web, version: "1.x", sourceRef: {kind: HelmRepository, name: charts, namespace: flux-system}}}
`
	if err := os.WriteFile(p, []byte(tree), 0o644); err != nil {
		t.Fatal(err)
	}
}

// argsProbe is a wrapper script (serveWrappedRelease) that records each
// command line routeguard runs with, one a line.
func argsProbe(file string) string {
	return "case \"$1\" in version) ;; *) printf '%s\\n' \"$*\" >> '" + file + "' ;; esac\nexec \"$REAL\" \"$@\"\n"
}

func cachedCharts(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".tgz") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// The Action's charts input: fetch (the default) gives flux-build
// --fetch-charts and a --chart-cache in RUNNER_TEMP, the directory the
// actions/cache step keeps, and the release renders from the loopback
// chart repository; offline gives neither, and the release is not built
// (RG0106 in the report). A symbolic link planted where the cache goes is
// removed, never written through.
func TestActionCharts(t *testing.T) {
	t.Parallel()
	a, _ := readAction(t)
	var cache, run actionStep
	for _, n := range a.Runs.Steps {
		var s actionStep
		if err := n.Decode(&s); err != nil {
			t.Fatal(err)
		}
		switch s.ID {
		case "chart-cache":
			cache = s
		case "run":
			run = s
		}
	}
	if !strings.HasPrefix(cache.Uses, "actions/cache@") || cache.With["path"] != "${{ runner.temp }}/routeguard-charts" ||
		!strings.HasPrefix(cache.With["key"], "routeguard-charts-${{ runner.os }}-${{ hashFiles(") || cache.With["restore-keys"] != "routeguard-charts-${{ runner.os }}-" ||
		!strings.Contains(cache.If, "inputs.charts == 'fetch'") {
		t.Errorf("the chart cache step: %+v", cache)
	}
	if !strings.Contains(run.Run, `"${RUNNER_TEMP:?}/routeguard-charts"`) {
		t.Errorf("the run step does not use the cache step's directory")
	}

	srv, hits := chartRepo(t)
	project := t.TempDir()
	writeChartTree(t, project, srv.URL)
	gitIn(t, project, "init", "-q")
	argsFile := filepath.Join(t.TempDir(), "args")
	release := serveWrappedRelease(t, argsProbe(argsFile))
	in := map[string]string{"version": "v" + releaseVersion, "download-url": release, "command": "flux-build", "paths": "clusters/c", "args": "--all", "upload-sarif": "false"}

	r := runActionWith(t, actionOptions{inputs: in, dir: project})
	args, _ := os.ReadFile(argsFile)
	cacheDir := filepath.Join(r.runnerTemp, "routeguard-charts")
	if !strings.HasPrefix(string(args), "flux build clusters/c --fetch-charts --chart-cache "+cacheDir+" --all --report text --report sarif=") || strings.Count(string(args), "\n") != 1 {
		t.Errorf("charts: fetch: routeguard ran as\n%s", args)
	}
	if r.outputs["run"]["exit-code"] != "0" || hits.Load() == 0 || len(cachedCharts(t, cacheDir)) != 1 {
		t.Fatalf("charts: fetch: exit %q, %d requests, cache %v; want 0, the chart fetched into the cache\n%s", r.outputs["run"]["exit-code"], hits.Load(), cachedCharts(t, cacheDir), r.log)
	}
	if sarif, _ := os.ReadFile(r.outputs["run"]["sarif-file"]); strings.Contains(string(sarif), "RG0106") {
		t.Errorf("charts: fetch: the release was not built:\n%s", sarif)
	}

	in["charts"] = "offline"
	before := hits.Load()
	if err := os.Remove(argsFile); err != nil {
		t.Fatal(err)
	}
	r = runActionWith(t, actionOptions{inputs: in, dir: project})
	args, _ = os.ReadFile(argsFile)
	if strings.Contains(string(args), "--fetch-charts") || strings.Contains(string(args), "--chart-cache") || hits.Load() != before {
		t.Errorf("charts: offline: routeguard ran as %s (%d requests)", args, hits.Load()-before)
	}
	if sarif, _ := os.ReadFile(r.outputs["run"]["sarif-file"]); !strings.Contains(string(sarif), "RG0106") {
		t.Errorf("charts: offline: the release is not reported as not built:\n%s\n%s", sarif, r.log)
	}

	// A link where the cache goes (planted by an earlier step).
	delete(in, "charts")
	outside := t.TempDir()
	r = runActionWith(t, actionOptions{inputs: in, dir: project, prepare: func(temp string) {
		if err := os.Symlink(outside, filepath.Join(temp, "routeguard-charts")); err != nil {
			t.Fatal(err)
		}
	}})
	if left, _ := os.ReadDir(outside); len(left) != 0 {
		t.Errorf("the chart cache was written through a symbolic link: %v", left)
	}
	if fi, err := os.Lstat(filepath.Join(r.runnerTemp, "routeguard-charts")); err != nil || !fi.IsDir() || !strings.Contains(r.log, "is not a directory; it is removed") {
		t.Errorf("the link was not replaced by a directory, with a line saying so (%v)\n%s", err, r.log)
	}
	if r.outputs["run"]["exit-code"] != "0" {
		t.Errorf("with a link planted: exit %q\n%s", r.outputs["run"]["exit-code"], r.log)
	}
}

// The GitLab template's charts input: fetch (the default) gives flux-build
// --fetch-charts and --chart-cache .routeguard-charts, the path its cache:
// keeps; what the repository holds there (tracked files, a symbolic link
// leading out) is removed with a line in the log before routeguard writes
// there; offline gives neither flag.
func TestGitLabCharts(t *testing.T) {
	t.Parallel()
	needTools(t)
	out, err := readTemplate(t).interpolate(map[string]string{"version": "v0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "paths: [.routeguard-charts/]") || !strings.Contains(out, `files: ["**/*.y*ml", "**/Chart.lock"]`) {
		t.Errorf("the job's cache: does not keep .routeguard-charts/ keyed on the chart files:\n%s", out)
	}
	srv, hits := chartRepo(t)
	argsFile := filepath.Join(t.TempDir(), "args")
	release := serveWrappedRelease(t, argsProbe(argsFile))
	in := map[string]string{"version": "v" + releaseVersion, "download-url": release, "command": "flux-build", "paths": "clusters/c", "args": "--all"}
	outside := t.TempDir()
	tests := []struct {
		name    string
		charts  string
		prepare func(project string)
		log     string // a line the job must print
	}{
		{name: "fetch"},
		{name: "tracked", prepare: func(project string) {
			p := filepath.Join(project, ".routeguard-charts", "https", "forged.tgz")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("forged"), 0o644); err != nil {
				t.Fatal(err)
			}
			gitIn(t, project, "add", ".routeguard-charts")
		}, log: "the repository holds .routeguard-charts; it is removed from this checkout"},
		{name: "link", prepare: func(project string) {
			if err := os.Symlink(outside, filepath.Join(project, ".routeguard-charts")); err != nil {
				t.Fatal(err)
			}
		}, log: ".routeguard-charts in the checkout is a symbolic link; it is removed"},
		{name: "offline", charts: "offline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_ = os.Remove(argsFile)
			in := maps.Clone(in)
			if tt.charts != "" {
				in["charts"] = tt.charts
			}
			before := hits.Load()
			project, code, log := gitlabRunWith(t, gitlabOptions{inputs: in, prepare: func(project string) {
				writeChartTree(t, project, srv.URL)
				if tt.prepare != nil {
					tt.prepare(project)
				}
			}})
			args, _ := os.ReadFile(argsFile)
			cacheDir := filepath.Join(project, ".routeguard-charts")
			if tt.charts == "offline" {
				if strings.Contains(string(args), "--fetch-charts") || hits.Load() != before || code != 0 {
					t.Errorf("offline: exit %d, routeguard ran as\n%s(%d requests)\n%s", code, args, hits.Load()-before, log)
				}
				return
			}
			if n := strings.Count(string(args), "flux build clusters/c --fetch-charts --chart-cache "+cacheDir+" --all --report "); n != 1 || strings.Count(string(args), "\n") != 1 {
				t.Errorf("routeguard ran %d times with the chart flags, want once:\n%s", n, args)
			}
			if code != 0 || len(cachedCharts(t, cacheDir)) != 1 || hits.Load() == before && tt.name == "fetch" {
				t.Errorf("exit %d, cache %v; want 0 and the chart fetched into .routeguard-charts\n%s", code, cachedCharts(t, cacheDir), log)
			}
			if tt.log != "" && !strings.Contains(log, tt.log) {
				t.Errorf("the log does not say %q:\n%s", tt.log, log)
			}
			if _, err := os.Stat(filepath.Join(cacheDir, "https", "forged.tgz")); err == nil {
				t.Errorf("the repository's .routeguard-charts was kept")
			}
			if left, _ := os.ReadDir(outside); len(left) != 0 {
				t.Errorf("the chart cache was written through a symbolic link: %v", left)
			}
			if data, err := os.ReadFile(filepath.Join(project, "routeguard-reports", "gl-code-quality-report.json")); err != nil || strings.Contains(string(data), "RG0106") {
				t.Errorf("the release was not built (%v):\n%s", err, data)
			}
		})
	}
}
