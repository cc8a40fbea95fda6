package render

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/postrenderer"
	release "helm.sh/helm/v4/pkg/release/v1"

	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/guard"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/templatelimit"
)

// ReleaseOptions describe a Helm release rendered by a controller that
// computes its own values and post-renderers (Flux's helm-controller), where
// HelmTemplate's `helm template` flags do not fit.
type ReleaseOptions struct {
	Name        string
	Namespace   string
	ValuesFiles []string       // replace the chart's values.yaml, merged in order, relative to the chart (spec.chart.spec.valuesFiles)
	Values      map[string]any // merged over the files (valuesFrom + spec.values, already merged)
	KubeVersion string
	// Archive, when set, is a chart archive fetched from a chart repository
	// (outside the repository root); chartDir is then ignored and
	// ValuesFiles are paths inside the chart.
	Archive string
	// IgnoreMissingValuesFiles skips ValuesFiles that do not exist
	// (spec.chart.spec.ignoreMissingValuesFiles).
	IgnoreMissingValuesFiles bool
	// SkipCRDs leaves out the chart's crds/ directory (helm-controller's
	// install.crds: Skip).
	SkipCRDs bool
	// PostRenderer runs on the rendered manifests, through Helm's own
	// post-render step (helm-controller sets Kustomize patches and its
	// origin labels here).
	PostRenderer postrenderer.PostRenderer
	// Dependencies fetches the dependencies of a chart in the repository
	// that are not vendored under charts/ (source-controller builds them
	// for a chart from a GitRepository: file:// ones from the source,
	// others from their repositories); nil: only file:// ones.
	Dependencies DependencyFetcher
	// SkipMissingDependencies: see HelmOptions.SkipMissingDependencies.
	SkipMissingDependencies bool
	// Trace, when set, records what the render observes of repoRoot
	// (confine.Trace), as Options.Trace does.
	Trace *confine.Trace
}

// RenderRelease installs the chart in chartDir client-only (Helm SDK, no
// cluster, no network) and returns the release's objects, hooks left out, as
// helm-controller applies them. Reads are confined to repoRoot.
//
// Dependencies of a chart in the repository that are not vendored are built
// as source-controller builds them; those that cannot be had fail the
// render, or with SkipMissingDependencies are left out (returned) and the
// chart's own templates rendered.
func RenderRelease(ctx context.Context, repoRoot, chartDir string, o ReleaseOptions) (*manifest.Set, *MissingDependenciesError, error) {
	var missing *MissingDependenciesError
	set, err := renderRelease(ctx, repoRoot, chartDir, o, &missing)
	if missing != nil && (err != nil || set.Len() == 0) {
		return nil, nil, missing
	}
	return set, missing, err
}

func renderRelease(ctx context.Context, repoRoot, chartDir string, o ReleaseOptions, missing **MissingDependenciesError) (*manifest.Set, error) {
	r, err := newRoot(repoRoot)
	if err != nil {
		return nil, err
	}
	defer r.close()
	r.setTrace(o.Trace)
	var dir string
	var ch chart.Charter
	if o.Archive != "" {
		dir = r.dir
		if ch, err = loader.Load(o.Archive); err != nil {
			return nil, fmt.Errorf("%s: cannot load Helm chart: %w", filepath.Base(o.Archive), err)
		}
	} else {
		if dir, err = r.resolve(chartDir); err != nil {
			return nil, fmt.Errorf("chart %w", err)
		}
		if !fileExists(dir + "/Chart.yaml") {
			return nil, fmt.Errorf("%s: no Chart.yaml; the chart path must be a chart directory in the repository", r.rel(dir))
		}
		if ch, err = loadChart(r, dir, r.maxFileBytes()); err != nil {
			return nil, fmt.Errorf("%s: cannot load Helm chart: %w", r.rel(dir), err)
		}
	}
	acc, err := chart.NewAccessor(ch)
	if err != nil {
		return nil, err
	}
	if req := acc.MetaDependencies(); len(req) > 0 {
		if err := action.CheckDependencies(ch, req); err != nil {
			v2, ok := ch.(*chartv2.Chart)
			if o.Archive != "" || !ok {
				return nil, fmt.Errorf("%s: %w; vendor the dependencies under charts/ and commit them", r.rel(dir), err)
			}
			if err := buildDependencies(ctx, r, dir, v2, o.Dependencies); err != nil {
				if !errors.As(err, missing) || !o.SkipMissingDependencies {
					return nil, err
				}
				withoutDependencies(v2, (*missing).Missing)
			}
		}
	}
	if len(o.ValuesFiles) > 0 {
		// source-controller packages the chart with spec.valuesFiles merged
		// in order as its values.yaml: the chart's own values.yaml is not
		// included unless listed ("values.yaml is not included by default").
		var files map[string]any
		if o.Archive != "" {
			files, err = archiveValues(ch, o.ValuesFiles, o.IgnoreMissingValuesFiles)
		} else {
			files, err = mergeValuesFiles(r, dir, o.ValuesFiles, o.IgnoreMissingValuesFiles)
		}
		if err != nil {
			return nil, err
		}
		v2, ok := ch.(*chartv2.Chart)
		if !ok {
			return nil, fmt.Errorf("%s: valuesFiles need a v2 chart, got %T", r.rel(dir), ch)
		}
		v2.Values = files
	}
	vals := o.Values
	if vals == nil {
		vals = map[string]any{}
	}
	// What Flux's helm-controller would install is reviewed and analyzed,
	// never applied from here: the random functions are seeded.
	install, err := clientOnlyInstall(o.Name, o.Namespace, o.KubeVersion, nil, !o.SkipCRDs, o.PostRenderer, r.maxFileBytes(), templatelimit.Seeded)
	if err != nil {
		return nil, err
	}
	what := r.rel(dir)
	if o.Archive != "" {
		what = filepath.Base(o.Archive)
	}
	end := guard.Begin("rendering the templates of Helm chart " + what + " (HelmRelease " + o.Namespace + "/" + o.Name + ")")
	rel, err := install.RunWithContext(ctx, ch, vals)
	end()
	if err != nil {
		return nil, fmt.Errorf("%s: helm install (client-only) failed: %w", r.rel(dir), helmError(err))
	}
	rv1, ok := rel.(*release.Release)
	if !ok {
		return nil, fmt.Errorf("%s: unexpected Helm release type %T", r.rel(dir), rel)
	}
	chartRel := r.rel(dir)
	if o.Archive != "" {
		chartRel = filepath.Base(o.Archive)
	}
	docs := splitHelmManifest(rv1.Manifest)
	if err := checkTemplateSizes(chartRel, docs, r.maxFileBytes()); err != nil {
		return nil, err
	}
	// helm-controller installs what Helm renders; Helm refuses a repeated
	// object, so it stays an error here.
	return templateObjects(chartRel, docs, nil)
}

// archiveValues merges the values files inside a chart archive, in order.
func archiveValues(ch chart.Charter, files []string, ignoreMissing bool) (map[string]any, error) {
	v2, ok := ch.(*chartv2.Chart)
	if !ok {
		return nil, fmt.Errorf("valuesFiles need a v2 chart, got %T", ch)
	}
	out := map[string]any{}
	for _, f := range files {
		name := path.Clean(strings.TrimPrefix(filepath.ToSlash(f), "./"))
		var data []byte
		found := false
		for _, file := range v2.Raw {
			if file.Name == name {
				data, found = file.Data, true
				break
			}
		}
		if !found {
			if ignoreMissing {
				continue
			}
			return nil, fmt.Errorf("values file %s is not in chart %s %s", f, v2.Name(), v2.Metadata.Version)
		}
		cur := map[string]any{}
		if err := yaml.Unmarshal(data, &cur); err != nil {
			return nil, fmt.Errorf("values file %s of chart %s: %w", f, v2.Name(), err)
		}
		out = loader.MergeMaps(out, cur)
	}
	return out, nil
}
