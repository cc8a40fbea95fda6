package flux

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	helmcli "helm.sh/helm/v4/pkg/cli"
	"helm.sh/helm/v4/pkg/downloader"
	"helm.sh/helm/v4/pkg/getter"
	repo "helm.sh/helm/v4/pkg/repo/v1"

	"github.com/routeguard/routeguard/internal/manifest"
)

// remoteChart is a chart that a HelmRepository (https) holds.
type remoteChart struct {
	repoURL, name, version string
}

// helmRepositoryChart resolves spec.chart.spec with a HelmRepository
// sourceRef. OCI repositories are not fetched.
func (inv *Inventory) helmRepositoryChart(hr *manifest.Object, cs map[string]any) (*remoteChart, error) {
	ref, _ := cs["sourceRef"].(map[string]any)
	name, _ := ref["name"].(string)
	ns, _ := ref["namespace"].(string)
	ns = cmp.Or(ns, hr.Namespace)
	repoObj, ok := inv.Sources[manifest.Key{Group: SourceGroup, Kind: "HelmRepository", Namespace: ns, Name: name}]
	if !ok {
		return nil, fmt.Errorf("spec.chart.spec.sourceRef: HelmRepository %s/%s is not in the repository (looked under %s)", ns, name, inv.Dir)
	}
	spec, _ := repoObj.Body["spec"].(map[string]any)
	url, _ := spec["url"].(string)
	if typ, _ := spec["type"].(string); typ == "oci" || strings.HasPrefix(url, "oci://") {
		return nil, &SkipError{Reason: fmt.Sprintf("its chart comes from the OCI HelmRepository %s/%s, which routeguard does not fetch", ns, name)}
	}
	chart, _ := cs["chart"].(string)
	version, _ := cs["version"].(string)
	if version == "*" {
		version = ""
	}
	return &remoteChart{repoURL: url, name: chart, version: version}, nil
}

// fetch downloads the chart archive into dir with Helm's own repository
// index lookup and downloader (nothing is printed).
func (c *remoteChart) fetch(ctx context.Context, dir string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	settings := helmcli.New()
	settings.RepositoryConfig = filepath.Join(dir, "repositories.yaml")
	settings.RepositoryCache = filepath.Join(dir, "cache")
	settings.ContentCache = filepath.Join(dir, "content")
	getters := getter.All(settings)
	chartURL, err := repo.FindChartInRepoURL(c.repoURL, c.name, getters, repo.WithChartVersion(c.version))
	if err != nil {
		return "", fmt.Errorf("chart %q version %q in %s: %w", c.name, orAny(c.version), c.repoURL, err)
	}
	dl := downloader.ChartDownloader{
		Out:              io.Discard,
		Getters:          getters,
		RepositoryConfig: settings.RepositoryConfig,
		RepositoryCache:  settings.RepositoryCache,
		ContentCache:     settings.ContentCache,
	}
	saved, _, err := dl.DownloadTo(chartURL, c.version, dir)
	if err != nil {
		return "", fmt.Errorf("downloading chart %q from %s: %w", c.name, c.repoURL, err)
	}
	return saved, nil
}

func orAny(v string) string {
	if v == "" {
		return "(latest)"
	}
	return v
}

// tempDir is a scratch directory for downloaded charts.
func tempDir() (string, func(), error) {
	d, err := os.MkdirTemp("", "routeguard-chart-")
	if err != nil {
		return "", nil, err
	}
	return d, func() { os.RemoveAll(d) }, nil
}
