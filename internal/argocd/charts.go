package argocd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"helm.sh/helm/v4/pkg/chart/v2/util"

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
