package render

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"

	"helm.sh/helm/v4/pkg/chart"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/ignore"
	yaml "sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifest"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// loadChart loads the chart in chartDir as Helm's directory loader does
// (.helmignore and its defaults, symlinks followed, irregular files refused,
// Helm's total size budget), but reads every file through the confined root:
// a symlink anywhere in the chart, a subchart or a symlinked directory that
// leads out of the repository fails the load instead of being read.
func loadChart(r *root, chartDir string, maxFile int64) (chart.Charter, error) {
	rules := ignore.Empty()
	if data, err := r.readFile(path.Join(chartDir, ignore.HelmIgnore), maxFile); err == nil {
		if rules, err = ignore.Parse(bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("%s/%s: %w", r.rel(chartDir), ignore.HelmIgnore, err)
		}
	}
	rules.AddDefaults()
	var files []*archive.BufferedFile
	budget := archive.MaxDecompressedChartSize
	err := r.Walk(chartDir, confine.WalkOptions{Follow: true}, func(rel string, fi fs.FileInfo) error {
		if rel == "." {
			return nil
		}
		if fi.IsDir() {
			if rules.Ignore(rel, fi) {
				return confine.SkipDir
			}
			return nil
		}
		if rules.Ignore(rel, fi) {
			return nil
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s/%s: %w; a chart holds only regular files", r.rel(chartDir), rel, confine.ErrNotRegular)
		}
		data, err := r.readFile(path.Join(chartDir, rel), min(maxFile, budget))
		if err != nil {
			return err
		}
		if manifest.IsLFSPointer(data) {
			// Helm would say "gzip: invalid header" for a subchart archive.
			return manifest.LFSPointerError(r.rel(path.Join(chartDir, rel)))
		}
		if budget -= int64(len(data)); budget < 0 {
			return fmt.Errorf("%s: the chart is larger than Helm's %d MiB limit", r.rel(chartDir), archive.MaxDecompressedChartSize>>20)
		}
		files = append(files, &archive.BufferedFile{Name: rel, ModTime: fi.ModTime(), Data: bytes.TrimPrefix(data, utf8BOM)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	var meta struct {
		APIVersion string `json:"apiVersion"`
	}
	for _, f := range files {
		if f.Name == "Chart.yaml" {
			_ = yaml.Unmarshal(f.Data, &meta)
		}
	}
	switch meta.APIVersion {
	case chartv2.APIVersionV1, chartv2.APIVersionV2, "":
		return loader.LoadFiles(files)
	}
	return nil, fmt.Errorf("%s: Chart.yaml apiVersion %q is not supported (routeguard renders v1 and v2 charts, as Helm 3 and 4 do)", r.rel(chartDir), meta.APIVersion)
}
