package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart"
	"helm.sh/helm/v4/pkg/chart/common"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/postrenderer"
	release "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/strvals"
	yaml "sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/guard"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/printable"
	"github.com/routeguard/routeguard/internal/templatelimit"
)

// TemplateDoc is one document Helm rendered, with the template it came from
// ("<chart>/templates/x.yaml", Helm's "# Source:" path).
type TemplateDoc struct {
	Template string
	Content  string
}

// HelmTemplate renders the chart in chartDir as `helm template` does, with
// the Helm SDK: client-only, no cluster, no network. Values files must lie
// inside the repository root. Returned documents are in Helm's output order
// (manifests, then hooks).
func HelmTemplate(ctx context.Context, r *root, chartDir string, h HelmOptions) ([]TemplateDoc, error) {
	docs, _, err := helmTemplate(ctx, r, chartDir, h)
	return docs, err
}

// helmTemplate is HelmTemplate; with h.SkipMissingDependencies, a chart
// whose dependencies cannot be had renders its own templates and the
// dependencies left out are returned.
func helmTemplate(ctx context.Context, r *root, chartDir string, h HelmOptions) ([]TemplateDoc, *MissingDependenciesError, error) {
	ch, err := loadChart(r, chartDir, r.maxFileBytes())
	if err != nil {
		return nil, nil, fmt.Errorf("%s: cannot load Helm chart: %w", r.rel(chartDir), err)
	}
	acc, err := chart.NewAccessor(ch)
	if err != nil {
		return nil, nil, err
	}
	var missing *MissingDependenciesError
	if req := acc.MetaDependencies(); len(req) > 0 {
		if err := action.CheckDependencies(ch, req); err != nil {
			if !h.BuildDependencies {
				return nil, nil, fmt.Errorf("%s: %w; vendor the dependencies under charts/ (helm dependency build) and commit them", r.rel(chartDir), err)
			}
			v2, ok := ch.(*chartv2.Chart)
			if !ok {
				return nil, nil, fmt.Errorf("%s: %w; vendor the dependencies under charts/ (helm dependency build) and commit them", r.rel(chartDir), err)
			}
			if err := buildDependencies(ctx, r, chartDir, v2, h.Dependencies); err != nil {
				if !errors.As(err, &missing) || !h.SkipMissingDependencies {
					return nil, nil, err
				}
				withoutDependencies(v2, missing.Missing)
			}
		}
	}
	docs, err := renderChart(ctx, r, chartDir, ch, h)
	if missing != nil && (err != nil || len(docs) == 0) {
		// The chart's own templates need what the dependencies hold (an
		// include of theirs), or it has none: it needs them, as in Helm.
		return nil, nil, missing
	}
	return docs, missing, err
}

// withoutDependencies drops the missing dependencies from a chart's
// Chart.yaml, as if it declared only those it has.
func withoutDependencies(ch *chartv2.Chart, missing []ChartDependency) {
	gone := map[string]bool{}
	for _, d := range missing {
		gone[d.Name] = true
	}
	ch.Metadata.Dependencies = slices.DeleteFunc(slices.Clone(ch.Metadata.Dependencies), func(d *chartv2.Dependency) bool { return d == nil || gone[d.Name] })
}

// renderChart installs the loaded chart client-only, as helm template does.
func renderChart(ctx context.Context, r *root, chartDir string, ch chart.Charter, h HelmOptions) ([]TemplateDoc, error) {
	vals, err := mergeValues(r, chartDir, h)
	if err != nil {
		return nil, err
	}
	install, err := clientOnlyInstall(h.Release, h.Namespace, h.KubeVersion, h.APIVersions, h.IncludeCRDs, nil, r.maxFileBytes(), randomOf(h))
	if err != nil {
		return nil, err
	}
	install.SkipSchemaValidation = h.SkipSchemaValidation
	end := guard.Begin("rendering the templates of Helm chart " + chartLabel(r, chartDir))
	rel, err := install.RunWithContext(ctx, ch, vals)
	end()
	if err != nil {
		return nil, fmt.Errorf("%s: helm template failed: %w", r.rel(chartDir), helmError(err))
	}
	rv1, ok := rel.(*release.Release)
	if !ok {
		return nil, fmt.Errorf("%s: unexpected Helm release type %T", r.rel(chartDir), rel)
	}
	docs := splitHelmManifest(rv1.Manifest)
	for _, hook := range rv1.Hooks {
		if h.DisableHooks {
			break
		}
		if h.SkipTests && slices.Contains(hook.Events, release.HookTest) {
			continue
		}
		docs = append(docs, TemplateDoc{Template: hook.Path, Content: hook.Manifest})
	}
	if err := checkTemplateSizes(r.rel(chartDir), docs, r.maxFileBytes()); err != nil {
		return nil, err
	}
	return docs, nil
}

// splitHelmManifest splits Helm's combined manifest on document markers and
// reads each document's "# Source:" comment.
func splitHelmManifest(m string) []TemplateDoc {
	var out []TemplateDoc
	for _, part := range strings.Split("\n"+m, "\n---") {
		part = strings.TrimPrefix(part, "\n")
		if strings.TrimSpace(part) == "" {
			continue
		}
		doc := TemplateDoc{Content: part}
		if strings.HasPrefix(part, "# Source: ") {
			line, _, _ := strings.Cut(part, "\n")
			doc.Template = strings.TrimSpace(strings.TrimPrefix(line, "# Source: "))
		}
		out = append(out, doc)
	}
	return out
}

// mergeValues merges values as Helm does: -f files in order (the inline
// values last among them, as Argo CD passes them), then --set,
// --set-string and --set-file.
func mergeValues(r *root, chartDir string, h HelmOptions) (map[string]any, error) {
	base, err := mergeValuesFiles(r, chartDir, h.ValuesFiles, false)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(h.ValuesYAML)) > 0 {
		cur := map[string]any{}
		if err := yaml.Unmarshal(h.ValuesYAML, &cur); err != nil {
			return nil, fmt.Errorf("inline Helm values: %w", err)
		}
		base = loader.MergeMaps(base, cur)
	}
	for _, s := range h.Set {
		if err := strvals.ParseInto(s, base); err != nil {
			return nil, fmt.Errorf("--set %q: %w", s, err)
		}
	}
	for _, s := range h.SetString {
		if err := strvals.ParseIntoString(s, base); err != nil {
			return nil, fmt.Errorf("--set-string %q: %w", s, err)
		}
	}
	for _, s := range h.SetFile {
		reader := func(rs []rune) (any, error) {
			p := string(rs)
			if !filepath.IsAbs(p) {
				p = filepath.Join(chartDir, p)
			}
			data, err := r.readFile(p, manifest.DefaultMaxFileBytes)
			if err != nil {
				return nil, err
			}
			return string(data), nil
		}
		if err := strvals.ParseIntoFile(s, base, reader); err != nil {
			return nil, fmt.Errorf("--set-file %q: %w", s, err)
		}
	}
	return base, nil
}

// mergeValuesFiles merges values files (relative to chartDir) in order;
// with ignoreMissing, files that do not exist are left out.
func mergeValuesFiles(r *root, chartDir string, files []string, ignoreMissing bool) (map[string]any, error) {
	base := map[string]any{}
	for _, f := range files {
		p := f
		if !filepath.IsAbs(p) {
			p = filepath.Join(chartDir, f)
		}
		data, err := r.readFile(p, r.maxFileBytes())
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				if ignoreMissing {
					continue
				}
				return nil, fmt.Errorf("values file %s not found (paths are relative to the chart directory)", f)
			}
			return nil, fmt.Errorf("values file %w", err)
		}
		cur := map[string]any{}
		if err := yaml.Unmarshal(data, &cur); err != nil {
			return nil, fmt.Errorf("values file %s: %w", r.rel(p), err)
		}
		base = loader.MergeMaps(base, cur)
	}
	return base, nil
}

// renderHelm renders a chart directory app into a set. Sources name the
// template file inside the repository; lines are 0 (rendered output has no
// line in the template).
func renderHelm(ctx context.Context, r *root, chartDir string, opts Options) (*manifest.Set, *MissingDependenciesError, error) {
	h := opts.Helm
	if h.Release == "" {
		h.Release = filepath.Base(chartDir)
	}
	if h.Namespace == "" {
		h.Namespace = "default"
	}
	docs, missing, err := helmTemplate(ctx, r, chartDir, h)
	if err != nil {
		return nil, nil, err
	}
	set, err := templateObjects(r.rel(chartDir), docs, opts.RepeatedObject)
	if missing != nil && err == nil && set.Len() == 0 {
		return nil, nil, missing
	}
	return set, missing, err
}

// randomOf is where h's random functions draw from
// (HelmOptions.UnpredictableRandom).
func randomOf(h HelmOptions) templatelimit.Random {
	if h.UnpredictableRandom {
		return templatelimit.Unpredictable
	}
	return templatelimit.Seeded
}

// clientOnlyInstall is Helm's install action set up as `helm template` sets
// it up: client-only dry run, no cluster, no release-name check. Template
// functions that could make more than maxOutput bytes at once are bounded
// (internal/templatelimit).
func clientOnlyInstall(release, namespace, kubeVersion string, apiVersions []string, includeCRDs bool, pr postrenderer.PostRenderer, maxOutput int64, random templatelimit.Random) (*action.Install, error) {
	cfg := action.NewConfiguration(action.ConfigurationSetLogger(slog.DiscardHandler))
	cfg.CustomTemplateFuncs = templatelimit.Funcs(maxOutput, random)
	install := action.NewInstall(cfg)
	install.DryRunStrategy = action.DryRunClient
	install.Replace = true
	install.ReleaseName = release
	install.Namespace = namespace
	install.IncludeCRDs = includeCRDs
	install.PostRenderer = pr
	if kubeVersion != "" {
		kv, err := common.ParseKubeVersion(kubeVersion)
		if err != nil {
			return nil, fmt.Errorf("kube version %q: %w", kubeVersion, err)
		}
		install.KubeVersion = kv
	}
	install.APIVersions = common.VersionSet(apiVersions)
	return install, nil
}

// templateObjects decodes rendered chart documents into a set. Sources name
// the template file under chartRel ("<chart>/templates/x.yaml" ->
// "<chartRel>/templates/x.yaml"); lines are 0, since a rendered document
// has no line in its template.
func templateObjects(chartRel string, docs []TemplateDoc, repeated RepeatedObject) (*manifest.Set, error) {
	set := manifest.NewSet()
	for _, d := range docs {
		file := chartRel
		if _, rest, ok := strings.Cut(d.Template, "/"); ok {
			file = chartRel + "/" + rest
		}
		// Argo CD and Helm's install decode the rendered documents with
		// sigs.k8s.io/yaml: YAML 1.1 booleans.
		objs, err := manifest.DecodeWith(file, []byte(d.Content), manifest.DecodeOptions{YAML11Booleans: true})
		if err != nil {
			return nil, fmt.Errorf("chart rendered invalid YAML: %w", err)
		}
		for _, o := range objs {
			o.Source.Line = 0
		}
		if err := addAll(set, objs, repeated); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// checkTemplateSizes refuses a chart whose template rendered more than max
// bytes (--max-file-size): what one template makes is one manifest file.
func checkTemplateSizes(chart string, docs []TemplateDoc, max int64) error {
	sizes := map[string]int64{}
	for _, d := range docs {
		sizes[d.Template] += int64(len(d.Content))
	}
	for _, d := range docs {
		if n := sizes[d.Template]; n > max {
			name := d.Template
			if name == "" {
				name = "a template"
			}
			return fmt.Errorf("%s: %s rendered %d bytes, over the %d MiB limit of one template's output; "+
				"the chart makes more than any manifest holds (raise --max-file-size if it is legitimate)", chart, name, n, max>>20)
		}
	}
	return nil
}

// chartLabel names a chart directory for a message: its path in the
// repository, or its name when it is the repository's root.
func chartLabel(r *root, chartDir string) string {
	if rel := r.rel(chartDir); rel != "." {
		return rel
	}
	return filepath.Base(r.Abs("."))
}

// helmError is a failed Helm render's error with its repeats collapsed: a
// template that includes itself fails a thousand levels deep, each level
// saying the same (93 KB); printable.Collapse says it once, with a count.
func helmError(err error) error {
	msg := err.Error()
	if c := printable.Collapse(msg); c != msg {
		return scrubbed{c, err}
	}
	return err
}
