// Package chartstest serves Helm charts on loopback for tests: a chart
// repository (index.yaml made by Helm's repo.IndexDirectory) over HTTP, and
// an OCI registry (go-containerregistry's in-process registry) that charts
// are pushed to with Helm's own registry client. Nothing leaves 127.0.0.1.
package chartstest

import (
	"io"
	"log"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	ggcrregistry "github.com/google/go-containerregistry/pkg/registry"
	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/registry"
	repo "helm.sh/helm/v4/pkg/repo/v1"
)

// Chart builds a v2 chart named name at version from files (path in the
// chart -> content): templates/*, values.yaml and any other file.
func Chart(name, version string, files map[string]string) *chart.Chart {
	ch := &chart.Chart{Metadata: &chart.Metadata{APIVersion: chart.APIVersionV2, Name: name, Version: version, Type: "application"}}
	for _, f := range slices.Sorted(maps.Keys(files)) {
		file := &common.File{Name: f, Data: []byte(files[f])}
		switch {
		case strings.HasPrefix(f, "templates/"):
			ch.Templates = append(ch.Templates, file)
		case f == "values.yaml":
			ch.Raw = append(ch.Raw, file)
		default:
			ch.Files = append(ch.Files, file)
		}
	}
	return ch
}

// Archive packages ch into dir and returns the archive's path and bytes.
func Archive(t testing.TB, ch *chart.Chart, dir string) (string, []byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := chartutil.Save(ch, dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, data
}

// Repo is a chart repository on loopback.
type Repo struct {
	URL  string
	dir  string
	hits atomic.Int64
}

// Hits counts the requests the repository served.
func (r *Repo) Hits() int64 { return r.hits.Load() }

// NewRepo serves the charts over HTTP with an index.yaml made by Helm.
func NewRepo(t testing.TB, charts ...*chart.Chart) *Repo {
	t.Helper()
	r := &Repo{dir: t.TempDir()}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.hits.Add(1)
		http.FileServer(http.Dir(r.dir)).ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	for _, ch := range charts {
		Archive(t, ch, r.dir)
	}
	r.Reindex(t)
	return r
}

// Reindex rewrites index.yaml from the archives the repository holds.
func (r *Repo) Reindex(t testing.TB) {
	t.Helper()
	idx, err := repo.IndexDirectory(r.dir, r.URL)
	if err != nil {
		t.Fatal(err)
	}
	idx.SortEntries()
	if err := idx.WriteFile(filepath.Join(r.dir, "index.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Add packages more charts into the repository and reindexes it.
func (r *Repo) Add(t testing.TB, charts ...*chart.Chart) {
	t.Helper()
	for _, ch := range charts {
		Archive(t, ch, r.dir)
	}
	r.Reindex(t)
}

// Dir is where the repository's files are.
func (r *Repo) Dir() string { return r.dir }

// Registry is an OCI registry on loopback (plain HTTP).
type Registry struct {
	Host   string // 127.0.0.1:port
	client *registry.Client
	hits   atomic.Int64
}

// Hits counts the requests the registry served.
func (r *Registry) Hits() int64 { return r.hits.Load() }

// NewRegistry starts an in-process OCI registry.
func NewRegistry(t testing.TB) *Registry {
	t.Helper()
	r := &Registry{}
	h := ggcrregistry.New(ggcrregistry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.hits.Add(1)
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	r.Host = strings.TrimPrefix(srv.URL, "http://")
	c, err := registry.NewClient(registry.ClientOptPlainHTTP(), registry.ClientOptCredentialsFile(filepath.Join(t.TempDir(), "config.json")))
	if err != nil {
		t.Fatal(err)
	}
	r.client = c
	return r
}

// Push packages ch and pushes it to <host>/<repository>:<tag> with Helm's
// registry client; it returns the manifest digest.
func (r *Registry) Push(t testing.TB, ch *chart.Chart, repository, tag string) string {
	t.Helper()
	_, data := Archive(t, ch, t.TempDir())
	res, err := r.client.Push(data, r.Host+"/"+repository+":"+tag, registry.PushOptStrictMode(false))
	if err != nil {
		t.Fatal(err)
	}
	return res.Manifest.Digest
}
