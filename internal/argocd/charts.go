package argocd

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"helm.sh/helm/v4/pkg/chart/v2/util"

	"github.com/routeguard/routeguard/internal/charts"
	"github.com/routeguard/routeguard/internal/render"
)

// ChartRef names a chart in a chart repository: an https:// repository
// (index.yaml) or an oci:// registry, and a version or constraint.
type ChartRef struct {
	RepoURL string
	Name    string
	Version string
}

// ChartSource fetches charts from chart repositories, through a cache
// shared with the Flux build. Fetch returns the path of the chart (a
// directory or a packaged .tgz); offline it answers from the cache or
// says why it cannot.
type ChartSource interface {
	Fetch(ctx context.Context, ref ChartRef) (string, error)
}

// dependencyFetcher adapts a ChartSource to render's DependencyFetcher.
type dependencyFetcher struct{ charts ChartSource }

func (d dependencyFetcher) FetchDependency(ctx context.Context, dep render.ChartDependency) (string, error) {
	return d.charts.Fetch(ctx, ChartRef{RepoURL: dep.Repository, Name: dep.Name, Version: dep.Version})
}

// chartDir returns a directory holding the chart at p (a directory, or a
// .tgz expanded into a temporary directory removed by cleanup).
func chartDir(p string) (dir string, cleanup func(), err error) {
	fi, err := os.Stat(p)
	if err != nil {
		return "", nil, err
	}
	if fi.IsDir() {
		return p, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "routeguard-chart-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	if err := util.ExpandFile(tmp, p); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("expanding %s: %w", filepath.Base(p), err)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil || len(entries) != 1 || !entries[0].IsDir() {
		cleanup()
		return "", nil, fmt.Errorf("%s does not hold one chart directory", filepath.Base(p))
	}
	return filepath.Join(tmp, entries[0].Name()), cleanup, nil
}

// CacheSource fetches charts through the chart cache shared with the Flux
// build (internal/charts: Helm's index lookup and OCI registry client,
// version constraints resolved as Helm resolves them). A repoURL without a
// scheme is an OCI registry, as Argo CD writes Helm OCI repositories
// (host/path with enableOCI); a loopback registry (127.0.0.1, ::1,
// localhost) is spoken to over plain HTTP, as Docker and Helm's test
// registries do, every other one over TLS.
func CacheSource(c *charts.Cache) ChartSource { return cacheSource{c} }

type cacheSource struct{ c *charts.Cache }

func (s cacheSource) Fetch(ctx context.Context, ref ChartRef) (string, error) {
	repoURL := ref.RepoURL
	if !strings.Contains(repoURL, "://") {
		repoURL = "oci://" + repoURL
	}
	r := charts.Ref{RepoURL: repoURL, Name: ref.Name, Version: ref.Version}
	if u, err := url.Parse(repoURL); err == nil && u.Scheme == "oci" {
		h := u.Hostname()
		if ip := net.ParseIP(h); h == "localhost" || (ip != nil && ip.IsLoopback()) {
			r.Insecure = true
		}
	}
	ch, err := s.c.Fetch(ctx, r)
	if err != nil {
		return "", err
	}
	return ch.Path, nil
}
