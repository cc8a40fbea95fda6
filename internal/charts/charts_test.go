package charts_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"helm.sh/helm/v4/pkg/chart/v2/loader"

	"github.com/routeguard/routeguard/internal/charts"
	"github.com/routeguard/routeguard/internal/charts/chartstest"
)

func cm(name string) map[string]string {
	return map[string]string{"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n"}
}

// loaded checks that the archive is the chart name at version.
func loaded(t *testing.T, ch *charts.Chart, name, version string) {
	t.Helper()
	c, err := loader.Load(ch.Path)
	if err != nil {
		t.Fatalf("%s: %v", ch.Path, err)
	}
	if c.Metadata.Name != name || c.Metadata.Version != version || ch.Version != version {
		t.Fatalf("got chart %s %s (Chart.Version %s), want %s %s", c.Metadata.Name, c.Metadata.Version, ch.Version, name, version)
	}
}

func TestChartRepository(t *testing.T) {
	ctx := context.Background()
	r := chartstest.NewRepo(t,
		chartstest.Chart("app", "1.0.0", cm("a")), chartstest.Chart("app", "1.2.0", cm("a")),
		chartstest.Chart("app", "1.3.0-rc.1", cm("a")), chartstest.Chart("app", "2.0.0", cm("a")),
		chartstest.Chart("other", "0.1.0", cm("o")))
	dir := t.TempDir()
	tests := []struct{ version, want string }{
		{"1.0.0", "1.0.0"},
		{"^1.0", "1.2.0"},
		{"", "2.0.0"},
		{"*", "2.0.0"},
		{">=1.3.0-0 <2", "1.3.0-rc.1"},
	}
	online := &charts.Cache{Dir: dir}
	for _, tc := range tests {
		ch, err := online.Fetch(ctx, charts.Ref{RepoURL: r.URL, Name: "app", Version: tc.version})
		if err != nil {
			t.Fatalf("version %q: %v", tc.version, err)
		}
		loaded(t, ch, "app", tc.want)
		if !strings.HasPrefix(ch.Digest, "sha256:") || !strings.HasPrefix(ch.Path, dir) {
			t.Errorf("version %q: digest %q, path %q", tc.version, ch.Digest, ch.Path)
		}
	}
	if _, err := online.Fetch(ctx, charts.Ref{RepoURL: r.URL, Name: "app", Version: "9.9.9"}); err == nil || !strings.Contains(err.Error(), "not in the repository's index") {
		t.Errorf("missing version: %v", err)
	}
	// The index is downloaded once per Cache, archives once.
	if got := r.Hits(); got != 5 {
		t.Errorf("repository served %d requests, want 5 (index + 4 archives)", got)
	}

	// Offline, the cache answers the same and the repository is not asked.
	before := r.Hits()
	r.Add(t, chartstest.Chart("app", "2.1.0", cm("a"))) // published after the cache was filled
	offline := &charts.Cache{Dir: dir, Offline: true}
	for _, tc := range tests {
		ch, err := offline.Fetch(ctx, charts.Ref{RepoURL: r.URL, Name: "app", Version: tc.version})
		if err != nil {
			t.Fatalf("offline version %q: %v", tc.version, err)
		}
		loaded(t, ch, "app", tc.want)
	}
	if _, err := offline.Fetch(ctx, charts.Ref{RepoURL: r.URL, Name: "other"}); !errors.Is(err, charts.ErrNotCached) || !strings.Contains(err.Error(), "--allow-network") {
		t.Errorf("offline, chart never fetched: %v", err)
	}
	if _, err := (&charts.Cache{Dir: t.TempDir(), Offline: true}).Fetch(ctx, charts.Ref{RepoURL: r.URL, Name: "app"}); !errors.Is(err, charts.ErrNotCached) {
		t.Errorf("offline, empty cache: %v", err)
	}
	if r.Hits() != before {
		t.Errorf("offline runs reached the repository (%d requests)", r.Hits()-before)
	}
	// Online again: the newer version is seen.
	ch, err := (&charts.Cache{Dir: dir}).Fetch(ctx, charts.Ref{RepoURL: r.URL, Name: "app"})
	if err != nil {
		t.Fatal(err)
	}
	loaded(t, ch, "app", "2.1.0")
}

func TestChartRepositoryDigestMismatch(t *testing.T) {
	r := chartstest.NewRepo(t, chartstest.Chart("app", "1.0.0", cm("a")))
	idx := filepath.Join(r.Dir(), "index.yaml")
	data, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(data), "digest: ")
	tampered := string(data[:i]) + "digest: " + strings.Repeat("0", 64) + string(data[i+len("digest: ")+64:])
	if err := os.WriteFile(idx, []byte(tampered), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, err = (&charts.Cache{Dir: dir}).Fetch(context.Background(), charts.Ref{RepoURL: r.URL, Name: "app", Version: "1.0.0"})
	if err == nil || !strings.Contains(err.Error(), "refusing it") {
		t.Fatalf("tampered archive accepted: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "http")); err == nil {
		matches, _ := filepath.Glob(filepath.Join(dir, "http", "*", "*.tgz"))
		if len(matches) > 0 {
			t.Errorf("tampered archive stored: %v", matches)
		}
	}
}

func TestOCIRegistry(t *testing.T) {
	ctx := context.Background()
	reg := chartstest.NewRegistry(t)
	for _, v := range []string{"1.0.0", "1.1.0", "2.0.0-beta.1"} {
		reg.Push(t, chartstest.Chart("app", v, cm("a")), "charts/app", v)
	}
	first := reg.Push(t, chartstest.Chart("other", "0.1.0", cm("first")), "flux/other", "latest")
	stable := reg.Push(t, chartstest.Chart("other", "0.2.0", cm("stable")), "flux/other", "stable")
	base := "oci://" + reg.Host
	dir := t.TempDir()
	tests := []struct {
		name    string
		ref     charts.Ref
		chart   string
		version string
		digest  string
	}{
		{"constraint", charts.Ref{RepoURL: base + "/charts", Name: "app", Version: "~1.0"}, "app", "1.0.0", ""},
		{"newest stable", charts.Ref{RepoURL: base + "/charts", Name: "app"}, "app", "1.1.0", ""},
		{"prerelease asked for", charts.Ref{RepoURL: base + "/charts", Name: "app", Version: ">=2.0.0-0"}, "app", "2.0.0-beta.1", ""},
		{"OCIRepository default tag", charts.Ref{RepoURL: base + "/flux/other"}, "other", "0.1.0", first},
		{"OCIRepository tag", charts.Ref{RepoURL: base + "/flux/other", Tag: "stable"}, "other", "0.2.0", stable},
		{"OCIRepository digest", charts.Ref{RepoURL: base + "/flux/other", Digest: stable, Tag: "latest"}, "other", "0.2.0", stable},
	}
	for _, tc := range tests {
		tc.ref.Insecure = true
		for _, mode := range []string{"online", "offline"} {
			c := &charts.Cache{Dir: dir, Offline: mode == "offline"}
			ch, err := c.Fetch(ctx, tc.ref)
			if err != nil {
				t.Fatalf("%s, %s: %v", tc.name, mode, err)
			}
			if c, err := loader.Load(ch.Path); err != nil || c.Metadata.Name != tc.chart || c.Metadata.Version != tc.version {
				t.Fatalf("%s, %s: loaded %v %v", tc.name, mode, c, err)
			}
			if tc.digest != "" && ch.Digest != tc.digest {
				t.Errorf("%s, %s: digest %s, want %s", tc.name, mode, ch.Digest, tc.digest)
			}
		}
	}

	// A tag moved after the cache was filled: offline keeps what was
	// recorded, online follows the tag.
	moved := reg.Push(t, chartstest.Chart("other", "0.3.0", cm("moved")), "flux/other", "latest")
	before := reg.Hits()
	ref := charts.Ref{RepoURL: base + "/flux/other", Insecure: true}
	ch, err := (&charts.Cache{Dir: dir, Offline: true}).Fetch(ctx, ref)
	if err != nil || ch.Digest != first {
		t.Fatalf("offline after the tag moved: %v %v, want %s", ch, err, first)
	}
	if reg.Hits() != before {
		t.Errorf("offline run reached the registry")
	}
	ch, err = (&charts.Cache{Dir: dir}).Fetch(ctx, ref)
	if err != nil || ch.Digest != moved {
		t.Fatalf("online after the tag moved: %v %v, want %s", ch, err, moved)
	}
	if _, err := (&charts.Cache{Dir: dir, Offline: true}).Fetch(ctx, charts.Ref{RepoURL: base + "/flux/never", Insecure: true}); !errors.Is(err, charts.ErrNotCached) {
		t.Errorf("offline, never fetched: %v", err)
	}
	if _, err := (&charts.Cache{Dir: dir}).Fetch(ctx, charts.Ref{RepoURL: base + "/flux/other", Digest: "sha256:nothex", Insecure: true}); err == nil {
		t.Errorf("malformed digest accepted")
	}
}

func TestConcurrentFetchOnce(t *testing.T) {
	r := chartstest.NewRepo(t, chartstest.Chart("app", "1.0.0", cm("a")))
	c := &charts.Cache{Dir: t.TempDir()}
	var wg sync.WaitGroup
	paths := make([]string, 8)
	for i := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ch, err := c.Fetch(context.Background(), charts.Ref{RepoURL: r.URL, Name: "app", Version: "^1"})
			if err != nil {
				t.Error(err)
				return
			}
			paths[i] = ch.Path
		}()
	}
	wg.Wait()
	for _, p := range paths[1:] {
		if p != paths[0] {
			t.Fatalf("paths differ: %v", paths)
		}
	}
	if r.Hits() != 2 {
		t.Errorf("%d requests for one chart fetched 8 times at once, want 2", r.Hits())
	}
}

func TestCacheLayoutStaysInside(t *testing.T) {
	dir := t.TempDir()
	c := &charts.Cache{Dir: dir, Offline: true}
	// A URL whose path tries to climb out of the cache: the miss is
	// reported, and nothing is created outside dir.
	_, err := c.Fetch(context.Background(), charts.Ref{RepoURL: "https://example.invalid/../../etc", Name: "../../passwd", Version: "1.0.0"})
	if !errors.Is(err, charts.ErrNotCached) {
		t.Fatalf("got %v", err)
	}
	for _, bad := range []charts.Ref{{RepoURL: "ftp://x/y", Name: "a"}, {RepoURL: "not a url"}, {RepoURL: "https://x/y"}} {
		if _, err := c.Fetch(context.Background(), bad); err == nil || errors.Is(err, charts.ErrNotCached) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}
