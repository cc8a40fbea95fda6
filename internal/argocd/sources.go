package argocd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/render"
)

// Tool names, as Argo CD names its source types.
const (
	ToolHelm      = "Helm"
	ToolKustomize = "Kustomize"
	ToolDirectory = "Directory"
	ToolPlugin    = "Plugin"
)

// SourceResult is what became of one source of an Application.
type SourceResult struct {
	Index   int    // 0-based position in spec.sources (0 for spec.source)
	Tool    string // Helm, Kustomize, Directory, Plugin; "" for a ref-only source
	Where   string // the path in this repository, or the chart
	Objects int
	// Skipped says why the source was not rendered (another repository, a
	// chart repository without a chart source, another plugin); empty
	// when it was.
	Skipped string
	// MissingCharts are Kustomize helmCharts charts not in the repository,
	// left out of a source that rendered otherwise (partly rendered).
	MissingCharts []render.MissingChart
	// Remote are what the source's kustomizations name remotely, left out
	// offline from a source that rendered otherwise (partly rendered).
	Remote []render.RemoteRef
	// MissingDependencies are a chart's dependencies that could not be had,
	// left out of a chart whose own templates rendered (partly rendered).
	MissingDependencies *render.MissingDependenciesError
	// ChartNotFetched: the source was skipped because its chart (or the
	// chart's dependencies) is in a chart repository and was not fetched.
	ChartNotFetched bool
}

// skipError is a source routeguard cannot render; its reason becomes a
// notice and an unrendered scope, never an error. chart: because a chart
// from a chart repository was not fetched.
type skipError struct {
	reason string
	chart  bool
}

func (e *skipError) Error() string { return e.reason }

func skip(format string, a ...any) error { return &skipError{reason: fmt.Sprintf(format, a...)} }

// chartSkip is skip for a chart (or chart dependencies) not fetched.
func chartSkip(format string, a ...any) error {
	return &skipError{reason: fmt.Sprintf(format, a...), chart: true}
}

// sourceRenderer renders the sources of an Application from this
// checkout (directory, Helm, Kustomize, routeguard's plugin); the builder
// (build.go, declared.go, appsets.go, unlisted.go) finds the Applications
// and renders them, in waves, through it.
type sourceRenderer struct {
	opts Options
	repo *thisRepo
	// warnf records a warning of the build (safe for concurrent use).
	warnf func(format string, a ...any)
}

// renderSource renders source i of app. refs are the multi-source ref
// sources by name ("$name").
func (b *sourceRenderer) renderSource(ctx context.Context, app *Application, i int, src Source, refs map[string]Source, multi bool) (*manifest.Set, SourceResult, error) {
	res := SourceResult{Index: i, Where: src.Path}
	if multi && src.Path == "" && src.Chart == "" && src.Ref != "" {
		return nil, res, nil // a ref-only source renders nothing
	}
	if src.Chart != "" {
		res.Where = src.RepoURL + " " + src.Chart + " " + src.TargetRevision
		res.Tool = ToolHelm
		set, err := b.renderRemoteChart(ctx, app, src, refs, multi)
		return set, res, err
	}
	if strings.HasPrefix(src.RepoURL, "oci://") {
		return nil, res, skip("source %d comes from the OCI repository %s, which routeguard does not fetch", i+1, src.RepoURL)
	}
	if !b.repo.IsThis(src.RepoURL) {
		return nil, res, skip("source %d comes from the repository %s, not this one (give --repo-url if it is this one)", i+1, src.RepoURL)
	}
	appDir, err := b.repo.resolve(strings.TrimPrefix(filepath.FromSlash(cleanPath(src.Path)), string(filepath.Separator)))
	if err != nil {
		return nil, res, fmt.Errorf("source path %q: %w", src.Path, err)
	}
	b.observe(ctx, confine.ObservedTarget, appDir)
	b.observe(ctx, confine.ObservedStat, appDir)
	b.observe(ctx, confine.ObservedListing, appDir) // the tool Argo CD discovers
	for _, name := range []string{repoSourceFile, fmt.Sprintf(appSourceFile, app.Name)} {
		b.observe(ctx, confine.ObservedContent, filepath.Join(appDir, name))
	}
	if !b.repo.cr.IsDir(appDir) {
		field := "spec.source.path"
		if multi {
			field = fmt.Sprintf("spec.sources[%d].path", i)
		}
		return nil, res, fmt.Errorf("source path %q does not exist in this repository (app path does not exist); fix %s", src.Path, field)
	}
	if err := b.mergeSourceParameters(&src, appDir, app.Name); err != nil {
		return nil, res, err
	}
	tool, err := src.ExplicitType()
	if err != nil {
		return nil, res, err
	}
	if tool == "" {
		tool = b.discover(appDir)
	}
	res.Tool = tool
	env := newBuildEnv(app, src, b.opts.Revision)
	var set *manifest.Set
	switch tool {
	case ToolHelm:
		set, res.MissingDependencies, err = b.renderHelm(ctx, app, src, appDir, refs, multi, env)
	case ToolKustomize:
		set, res.MissingCharts, res.Remote, err = b.renderKustomize(ctx, app, src, appDir, env)
	case ToolPlugin:
		set, err = b.renderPlugin(ctx, app, src, appDir)
	default:
		set, err = b.renderDirectory(ctx, app, src, appDir, env)
	}
	return set, res, err
}

// cleanPath is the source path as a path inside the repository ("" and
// "." are the root).
func cleanPath(p string) string {
	p = strings.Trim(p, "/")
	if p == "" {
		return "."
	}
	return p
}

// discover is Argo CD's discovery for a source that names no tool: the
// routeguard plugin when its discovery is on and matches, else Kustomize
// when the directory holds a kustomization, Helm when it holds
// Chart.yaml, else a directory of manifests.
func (b *sourceRenderer) discover(appDir string) string {
	if b.opts.PluginDiscovery && b.discoverPlugin(appDir) {
		return ToolPlugin
	}
	switch render.Detect(appDir) {
	case render.ToolKustomize:
		return ToolKustomize
	case render.ToolHelm:
		return ToolHelm
	}
	return ToolDirectory
}

// Argo CD's per-directory parameter override files.
const (
	repoSourceFile = ".argocd-source.yaml"
	appSourceFile  = ".argocd-source-%s.yaml"
)

// mergeSourceParameters is Argo CD's mergeSourceParameters: the
// app directory's .argocd-source.yaml, then .argocd-source-<app>.yaml,
// merged into the source as JSON merge patches; only the tool options
// change (repoURL, path, chart and targetRevision are kept).
func (b *sourceRenderer) mergeSourceParameters(src *Source, appDir, appName string) error {
	merged := *src
	for _, name := range []string{repoSourceFile, fmt.Sprintf(appSourceFile, appName)} {
		p := filepath.Join(appDir, name)
		fi, err := b.repo.cr.Stat(p)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && fi.IsDir()) {
			continue
		}
		rel := b.repo.rel(p)
		patch, err := b.repo.read(p)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		if patch, err = yaml.YAMLToJSON(patch); err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		data, err := json.Marshal(merged)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		if data, err = jsonpatch.MergePatch(data, patch); err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		var next Source
		if err := json.Unmarshal(data, &next); err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		merged = next
	}
	merged.Chart, merged.Path, merged.RepoURL, merged.TargetRevision = src.Chart, src.Path, src.RepoURL, src.TargetRevision
	*src = merged
	return nil
}

// renderDirectory renders a directory source: recurse, include, exclude,
// jsonnet (ext vars and TLAs substituted with the build environment) and
// Argo CD's rules for files that are not manifests.
func (b *sourceRenderer) renderDirectory(ctx context.Context, app *Application, src Source, appDir string, env buildEnv) (*manifest.Set, error) {
	d := src.Directory
	if d == nil {
		d = &Directory{}
	}
	conv := func(vs []JsonnetVar) []render.JsonnetVar {
		out := make([]render.JsonnetVar, len(vs))
		for i, v := range vs {
			out[i] = render.JsonnetVar{Name: v.Name, Value: env.Envsubst(v.Value), Code: v.Code}
		}
		return out
	}
	opts := b.baseOptions(ctx, app, appDir)
	// Argo CD decodes with sigs.k8s.io/yaml: a key defined twice keeps its
	// last value, so the app renders (and syncs); say so, never fail it.
	dup := func(k manifest.DuplicateKey) {
		b.appWarn(ctx, "Application %s: %s", app.Key(), k)
	}
	opts.Directory = render.DirectoryOptions{Recurse: d.Recurse, Include: d.Include, Exclude: d.Exclude, SkipNonManifests: true, DuplicateKey: dup,
		Jsonnet: render.JsonnetOptions{ExtVars: conv(d.Jsonnet.ExtVars), TLAs: conv(d.Jsonnet.TLAs), Libs: d.Jsonnet.Libs}}
	res, err := render.Render(ctx, opts)
	if err != nil {
		return nil, err
	}
	for _, w := range res.Warnings {
		b.appWarn(ctx, "Application %s: %s", app.Key(), w)
	}
	return res.Set, nil
}

// baseOptions are the render options every source of this repository
// starts from.
func (b *sourceRenderer) baseOptions(ctx context.Context, app *Application, appDir string) render.Options {
	return render.Options{Path: appDir, RepoRoot: b.repo.root, AllowNetwork: b.opts.AllowNetwork,
		MaxFileBytes: b.opts.MaxFileBytes, Self: b.opts.Self, Trace: appTrace(ctx),
		// Argo CD applies the last of an object rendered twice and shows a
		// RepeatedResourceWarning: say so, never fail the Application.
		RepeatedObject: func(d *manifest.DuplicateError) {
			b.appWarn(ctx, "Application %s: %s is rendered twice (%s and %s); Argo CD applies the last one (RepeatedResourceWarning); keep one", app.Key(), d.Key, d.First, d.Second)
		}}
}
