package argocd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/render"
)

// helmOptions maps an Application's Helm options onto render's, as Argo
// CD's helmTemplate builds `helm template`: release name (the app's name,
// or releaseName), namespace (helm.namespace, else the destination's),
// Kubernetes version and API versions, value files (with $ref sources and
// globs), inline values, parameters (--set / --set-string, ${ARGOCD_*}
// substituted, commas escaped), file parameters, CRDs unless skipCrds,
// skipTests, skipSchemaValidation, and `helm dependency build` for
// dependencies not vendored.
func (b *sourceRenderer) helmOptions(app *Application, src Source, appDir, valuesBase string, refs map[string]Source, multi bool, env buildEnv) (render.HelmOptions, error) {
	h := src.Helm
	if h == nil {
		h = &Helm{}
	}
	o := render.HelmOptions{
		Release:              cmp.Or(h.ReleaseName, app.Name),
		Namespace:            cmp.Or(h.Namespace, app.Spec.Destination.Namespace),
		KubeVersion:          cmp.Or(h.KubeVersion, b.opts.KubeVersion),
		APIVersions:          b.opts.APIVersions,
		IncludeCRDs:          !h.SkipCrds,
		SkipTests:            h.SkipTests,
		SkipSchemaValidation: h.SkipSchemaValidation,
		BuildDependencies:    true,
	}
	if len(h.APIVersions) > 0 {
		o.APIVersions = h.APIVersions
	}
	if b.opts.Charts != nil {
		o.Dependencies = dependencyFetcher{b.opts.Charts}
	}
	files, err := b.valueFiles(h, appDir, valuesBase, refs, multi, env)
	if err != nil {
		return o, err
	}
	o.ValuesFiles = files
	if v := h.ValuesYAML(); len(strings.TrimSpace(string(v))) > 0 {
		o.ValuesYAML = v
	}
	set, setString := map[string]string{}, map[string]string{}
	for _, p := range h.Parameters {
		if p.ForceString {
			setString[p.Name] = p.Value
		} else {
			set[p.Name] = p.Value
		}
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		o.Set = append(o.Set, k+"="+cleanSetParameters(env.Envsubst(set[k])))
	}
	for _, k := range slices.Sorted(maps.Keys(setString)) {
		o.SetString = append(o.SetString, k+"="+cleanSetParameters(env.Envsubst(setString[k])))
	}
	for _, fp := range h.FileParameters {
		p, err := b.resolveValuePath(fp.Path, appDir, valuesBase, refs, multi, env)
		if err != nil {
			return o, fmt.Errorf("helm.fileParameters %s: %w", fp.Name, err)
		}
		o.SetFile = append(o.SetFile, fp.Name+"="+cleanSetParameters(p))
	}
	return o, nil
}

// cleanSetParameters is Argo CD's: commas are escaped (one --set is one
// value) unless the value is a {a,b} list or the comma is escaped already.
func cleanSetParameters(val string) string {
	if strings.HasPrefix(val, "{") && strings.HasSuffix(val, "}") {
		return val
	}
	var out strings.Builder
	var prev rune
	for _, r := range val {
		if r == ',' && prev != '\\' {
			out.WriteString(`\,`)
		} else {
			out.WriteRune(r)
		}
		prev = r
	}
	return out.String()
}

// valueFiles is Argo CD's getResolvedValueFiles: each entry resolved
// ($ref/... against the ref source, an absolute path against the
// repository root, else against the chart directory), globs expanded in
// lexical order (an entry also listed explicitly keeps its explicit
// position), missing files dropped with ignoreMissingValueFiles, each file
// once.
func (b *sourceRenderer) valueFiles(h *Helm, appDir, valuesBase string, refs map[string]Source, multi bool, env buildEnv) ([]string, error) {
	explicit := map[string]bool{}
	for _, raw := range h.ValueFiles {
		if p, err := b.resolveValuePath(raw, appDir, valuesBase, refs, multi, env); err == nil && !isGlob(p) {
			explicit[p] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, raw := range h.ValueFiles {
		p, err := b.resolveValuePath(raw, appDir, valuesBase, refs, multi, env)
		if err != nil {
			return nil, fmt.Errorf("helm.valueFiles %q: %w", raw, err)
		}
		if isGlob(p) {
			matches, err := b.glob(p)
			if err != nil {
				return nil, fmt.Errorf("helm.valueFiles %q: %w", raw, err)
			}
			if len(matches) == 0 {
				if h.IgnoreMissingValueFiles {
					continue
				}
				return nil, fmt.Errorf("values file glob %q matched no files", raw)
			}
			slices.Sort(matches)
			for _, m := range matches {
				if _, err := b.confine(m, valuesBase); err != nil {
					return nil, fmt.Errorf("glob pattern %q: %w", raw, err)
				}
				if !explicit[m] {
					add(m)
				}
			}
			continue
		}
		if _, err := b.stat(p); errors.Is(err, fs.ErrNotExist) && h.IgnoreMissingValueFiles {
			continue
		}
		add(p)
	}
	return out, nil
}

// glob expands a value file glob (doublestar, as Argo CD): through the
// confined root inside the repository, on disk for a fetched chart's own
// files (outside the repository, in the chart cache).
func (b *sourceRenderer) glob(p string) ([]string, error) {
	if !inside(p, b.repo.root) {
		return doublestar.FilepathGlob(p)
	}
	rel := b.repo.rel(p)
	matches, err := doublestar.Glob(b.repo.cr.FS(), rel, doublestar.WithFilesOnly())
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(matches))
	for _, m := range matches {
		if m != ".git" && !strings.HasPrefix(m, ".git/") {
			out = append(out, filepath.Join(b.repo.root, filepath.FromSlash(m)))
		}
	}
	return out, nil
}

// stat is os.Stat for a fetched chart's files, the confined root's inside
// the repository.
func (b *sourceRenderer) stat(p string) (fs.FileInfo, error) {
	if !inside(p, b.repo.root) {
		return os.Stat(p)
	}
	return b.repo.cr.Stat(p)
}

func isGlob(p string) bool { return strings.ContainsAny(p, "*?[") }

// resolveValuePath resolves a value file or file parameter path:
// "$ref/rest" against a multi-source ref source of this repository, a URL
// (not fetched: the source is skipped), an absolute path against the
// repository root, else against valuesBase (the chart directory).
func (b *sourceRenderer) resolveValuePath(raw, appDir, valuesBase string, refs map[string]Source, multi bool, env buildEnv) (string, error) {
	if multi && strings.HasPrefix(raw, "$") {
		name, rest, _ := strings.Cut(raw, "/")
		if ref, ok := refs[strings.TrimPrefix(name, "$")]; ok {
			if !b.repo.IsThis(ref.RepoURL) {
				return "", skip("its value file %s comes from the ref source %s in the repository %s, not this one", raw, name, ref.RepoURL)
			}
			return b.confine(filepath.Join(b.repo.root, filepath.FromSlash(env.Envsubst(rest))), "")
		}
	}
	v := env.Envsubst(raw)
	if u, err := url.Parse(v); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		return "", skip("its value file %s is fetched from a URL, which routeguard does not do", v)
	}
	var p string
	if filepath.IsAbs(v) {
		p = filepath.Join(b.repo.root, v)
	} else {
		p = filepath.Join(cmp.Or(valuesBase, appDir), v)
	}
	extra := ""
	if valuesBase != appDir || !inside(valuesBase, b.repo.root) {
		extra = valuesBase // a fetched chart's own values files
	}
	return b.confine(p, extra)
}

// confine returns p when its real location is inside the repository, or
// inside extra (a fetched chart, for its own values files).
func (b *sourceRenderer) confine(p, extra string) (string, error) {
	if extra != "" {
		if real, err := filepath.EvalSymlinks(p); err == nil && inside(real, extra) {
			return p, nil
		}
	}
	if _, err := b.repo.resolve(p); err != nil {
		return "", fmt.Errorf("file '%s' resolved to outside repository root", b.repo.rel(p))
	}
	return p, nil
}

// renderHelm renders a chart in this repository.
// A dependency that cannot be had (not vendored, not fetchable) is left
// out and returned, and the chart's own templates are rendered, so that its
// routes are checked and what the dependency deploys is "cannot check".
func (b *sourceRenderer) renderHelm(ctx context.Context, app *Application, src Source, appDir string, refs map[string]Source, multi bool, env buildEnv) (*manifest.Set, *render.MissingDependenciesError, error) {
	b.observeValueFiles(ctx, src, appDir, refs, multi, env)
	h, err := b.helmOptions(app, src, appDir, appDir, refs, multi, env)
	if err != nil {
		return nil, nil, err
	}
	h.SkipMissingDependencies = true
	opts := b.baseOptions(ctx, app, appDir)
	opts.Helm = h
	res, err := render.Render(ctx, opts)
	if err != nil {
		return nil, nil, helmSkip(err)
	}
	return res.Set, res.MissingDependencies, nil
}

// helmSkip turns a chart whose dependencies cannot be fetched into a
// skipped source: Argo CD would fetch them; routeguard says it could not.
func helmSkip(err error) error {
	var missing *render.MissingDependenciesError
	if errors.As(err, &missing) {
		return chartSkip("%s", missing.Error())
	}
	return err
}

// renderRemoteChart renders a source with a chart from a chart
// repository, fetched through the ChartSource; its value files may come
// from this repository ($ref sources).
func (b *sourceRenderer) renderRemoteChart(ctx context.Context, app *Application, src Source, refs map[string]Source, multi bool) (*manifest.Set, error) {
	what := fmt.Sprintf("chart %s %s from %s", src.Chart, cmp.Or(src.TargetRevision, "(latest)"), src.RepoURL)
	if b.opts.Charts == nil {
		return nil, chartSkip("%s: chart repositories cannot be reached; pass --fetch-charts to fetch it (and --chart-cache DIR to keep it for offline runs)", what)
	}
	p, err := b.opts.Charts.Fetch(ctx, ChartRef{RepoURL: src.RepoURL, Name: src.Chart, Version: src.TargetRevision})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, chartSkip("%s: %v", what, err)
	}
	dir, cleanup, err := chartDir(p)
	if err != nil {
		return nil, skip("%s: %v", what, err)
	}
	defer cleanup()
	appTrace(ctx).Opaque("a chart from the chart repository " + src.RepoURL)
	env := newBuildEnv(app, src, b.opts.Revision)
	h, err := b.helmOptions(app, src, dir, dir, refs, multi, env)
	if err != nil {
		return nil, err
	}
	opts := render.Options{Path: dir, RepoRoot: dir, ExtraRoots: []string{b.repo.root}, AllowNetwork: b.opts.AllowNetwork,
		MaxFileBytes: b.opts.MaxFileBytes, Self: b.opts.Self, Helm: h}
	res, err := render.Render(ctx, opts)
	if err != nil {
		return nil, helmSkip(err)
	}
	prefix := src.Chart + "@" + cmp.Or(src.TargetRevision, "latest")
	for _, o := range res.Set.Objects() {
		o.Source.File = prefix + "/" + strings.TrimPrefix(strings.TrimPrefix(o.Source.File, "."), "/")
	}
	return res.Set, nil
}
