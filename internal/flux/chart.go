package flux

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"

	"github.com/routeguard/routeguard/internal/charts"
	"github.com/routeguard/routeguard/internal/field"
)

// chartSource is where a HelmRelease's chart is: a directory of a local
// source, or an archive in the chart cache.
type chartSource struct {
	origin  *origin // the local source holding dir (nil for an archive)
	dir     string  // chart directory (absolute)
	archive string  // chart archive (absolute)
	// valuesFiles replace the chart's values.yaml, merged in order:
	// relative to dir for a local chart, paths inside the chart for an
	// archive (source-controller's spec.valuesFiles).
	valuesFiles   []string
	ignoreMissing bool
	what          string // how messages name the chart
}

// chartOf finds a HelmRelease's chart as source-controller would provide
// it: spec.chart.spec (a chart of a GitRepository, HelmRepository or
// Bucket), or spec.chartRef to an OCIRepository, a HelmChart or an
// ExternalArtifact.
func (b *sources) chartOf(ctx context.Context, hr *helmv2.HelmRelease) (*chartSource, error) {
	if ref := hr.Spec.ChartRef; ref != nil {
		key := SourceKey{Kind: ref.Kind, Namespace: cmp.Or(ref.Namespace, hr.Namespace), Name: ref.Name}
		switch ref.Kind {
		case "OCIRepository":
			return b.ociRepositoryChart(ctx, key)
		case "HelmChart":
			hc, ok := b.state.source(SourceGroup, "HelmChart", key.Namespace, key.Name)
			if !ok {
				return nil, skipMissing("HelmChart", key.Namespace, key.Name, "its chart, HelmChart %s/%s, is not among the objects the tree applies", key.Namespace, key.Name)
			}
			return b.templateChart(ctx, hc.Namespace, field.Map(hc.Body, "spec"), "HelmChart "+key.Namespace+"/"+key.Name)
		case "ExternalArtifact":
			if dir, ok := b.mapped[key]; ok {
				return &chartSource{dir: dir, origin: &origin{dir: dir, name: "--source " + key.String()}, what: "ExternalArtifact " + key.Namespace + "/" + key.Name}, nil
			}
			return nil, skip("ExternalArtifact chart", "its chart comes from ExternalArtifact %s/%s, which routeguard does not read as a chart; map it to the chart's directory with --source ExternalArtifact/%s/%s=DIR",
				key.Namespace, key.Name, key.Namespace, key.Name)
		}
		return nil, fmt.Errorf("spec.chartRef.kind %q must be OCIRepository, HelmChart or ExternalArtifact", ref.Kind)
	}
	if hr.Spec.Chart == nil {
		return nil, errors.New("neither spec.chart nor spec.chartRef is set; name the chart")
	}
	cs := hr.Spec.Chart.Spec
	spec := map[string]any{"chart": cs.Chart, "version": cs.Version, "sourceRef": map[string]any{"kind": cs.SourceRef.Kind, "name": cs.SourceRef.Name, "namespace": cs.SourceRef.Namespace}}
	var vf []any
	for _, f := range cs.ValuesFiles {
		vf = append(vf, f)
	}
	spec["valuesFiles"] = vf
	spec["ignoreMissingValuesFiles"] = cs.IgnoreMissingValuesFiles
	return b.templateChart(ctx, hr.Namespace, spec, "spec.chart.spec")
}

// templateChart resolves a HelmChart spec (or a HelmRelease's
// spec.chart.spec): chart, version, sourceRef, valuesFiles.
func (b *sources) templateChart(ctx context.Context, ns string, spec map[string]any, where string) (*chartSource, error) {
	name, version := field.String(spec, "chart"), field.String(spec, "version")
	ref := sourceRef(field.Map(spec, "sourceRef"), ns)
	valuesFiles := field.Strings(spec, "valuesFiles")
	ignoreMissing := field.Bool(spec, "ignoreMissingValuesFiles")
	if name == "" {
		return nil, fmt.Errorf("%s.chart is empty; name the chart", where)
	}
	switch ref.Kind {
	case "GitRepository", "Bucket":
		o, err := b.originOf(ref)
		if err != nil {
			return nil, err
		}
		dir, err := o.localDir(where+".chart", name)
		if err != nil {
			return nil, err
		}
		cs := &chartSource{origin: o, dir: dir, ignoreMissing: ignoreMissing, what: "chart " + o.display(strings.TrimPrefix(filepath.ToSlash(mustRel(o.dir, dir)), "./"))}
		for _, f := range valuesFiles {
			// valuesFiles of a chart in a source are relative to the
			// source's root; the renderer takes them relative to the chart.
			rel, err := filepath.Rel(dir, filepath.Join(o.dir, filepath.FromSlash(f)))
			if err != nil {
				return nil, fmt.Errorf("%s.valuesFiles %q: %w", where, f, err)
			}
			cs.valuesFiles = append(cs.valuesFiles, rel)
		}
		return cs, nil
	case "HelmRepository":
		repo, ok := b.state.source(SourceGroup, "HelmRepository", ref.Namespace, ref.Name)
		if !ok {
			return nil, skipMissing("HelmRepository", ref.Namespace, ref.Name, "its chart %q comes from HelmRepository %s/%s, which is not among the objects the tree applies", name, ref.Namespace, ref.Name)
		}
		url := field.String(repo.Body, "spec", "url")
		insecure := field.Bool(repo.Body, "spec", "insecure")
		cr := charts.Ref{RepoURL: url, Name: name, Version: version, Insecure: insecure}
		return b.fetchChart(ctx, cr, fmt.Sprintf("chart %s of HelmRepository %s/%s", name, ref.Namespace, ref.Name), valuesFiles, ignoreMissing)
	case "":
		return nil, fmt.Errorf("%s.sourceRef.kind is empty; name the chart's source", where)
	}
	return nil, fmt.Errorf("%s.sourceRef.kind %q must be GitRepository, HelmRepository or Bucket", where, ref.Kind)
}

// ociRepositoryChart resolves spec.chartRef to an OCIRepository: its URL
// and ref (digest, else semver, else tag, default latest).
func (b *sources) ociRepositoryChart(ctx context.Context, key SourceKey) (*chartSource, error) {
	if dir, ok := b.mapped[key]; ok {
		return &chartSource{dir: dir, origin: &origin{dir: dir, name: "--source " + key.String()}, what: "OCIRepository " + key.Namespace + "/" + key.Name + " (mapped)"}, nil
	}
	o, ok := b.state.source(SourceGroup, "OCIRepository", key.Namespace, key.Name)
	if !ok {
		return nil, skipMissing("OCIRepository", key.Namespace, key.Name, "its chart, OCIRepository %s/%s, is not among the objects the tree applies", key.Namespace, key.Name)
	}
	ref := field.Map(o.Body, "spec", "ref")
	insecure := field.Bool(o.Body, "spec", "insecure")
	cr := charts.Ref{RepoURL: field.String(o.Body, "spec", "url"), Tag: field.String(ref, "tag"), Version: field.String(ref, "semver"), Digest: field.String(ref, "digest"), Insecure: insecure}
	if f := field.String(ref, "semverFilter"); f != "" && cr.Digest == "" {
		return nil, skip("OCIRepository semverFilter", "its chart, OCIRepository %s/%s, selects tags with spec.ref.semverFilter, which routeguard does not apply; pin spec.ref.semver or a digest, or map it with --source", key.Namespace, key.Name)
	}
	return b.fetchChart(ctx, cr, fmt.Sprintf("chart %s (OCIRepository %s/%s)", cr, key.Namespace, key.Name), nil, false)
}

// fetchChart gets a chart archive from the chart cache (or, with the
// network allowed, from its repository).
func (b *sources) fetchChart(ctx context.Context, ref charts.Ref, what string, valuesFiles []string, ignoreMissing bool) (*chartSource, error) {
	if b.charts == nil {
		return nil, skip(skipChartOffline, "its %s is in a chart repository; pass --fetch-charts to fetch it (and --chart-cache DIR to keep it for offline runs)", what)
	}
	ch, err := b.charts.Fetch(ctx, ref)
	if errors.Is(err, charts.ErrNotCached) {
		return nil, skip(skipChartNotCached, "its %s: %v", what, err)
	}
	if err != nil && strings.Contains(err.Error(), "not in the repository's index") {
		return nil, fmt.Errorf("its %s: %w", what, err)
	}
	if err != nil {
		return nil, skip(skipChartFetchFailed, "its %s could not be fetched: %v", what, err)
	}
	return &chartSource{archive: ch.Path, valuesFiles: valuesFiles, ignoreMissing: ignoreMissing, what: fmt.Sprintf("%s version %s", what, cmp.Or(ch.Version, ch.Digest))}, nil
}

func mustRel(base, p string) string {
	r, err := filepath.Rel(base, p)
	if err != nil {
		return p
	}
	return r
}
