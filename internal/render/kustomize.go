package render

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	kyaml "sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/guard"
	"github.com/routeguard/routeguard/internal/manifest"
)

// kustomizeHelmTemp matches the temporary directories Kustomize names in
// its helm errors (HELM_CONFIG_HOME=...).
var kustomizeHelmTemp = regexp.MustCompile(`/[^ \]'"]*/kustomize-helm-[0-9]+`)

// scrubHelmShim takes the per-render temporary paths out of Kustomize's
// message about a failed helm call (the shim's path and Kustomize's helm
// home), so that the same repository gives the same message every run.
func scrubHelmShim(msg, command string) string {
	msg = strings.ReplaceAll(msg, command, "helm")
	return kustomizeHelmTemp.ReplaceAllString(msg, "$$TMPDIR/kustomize-helm")
}

// scrubbed is an error with another message, still wrapping the original.
// leftOut is what a Kustomize build for the analysis was rendered without
// (Options.SkipMissingCharts, Options.SkipRemote).
type leftOut struct {
	charts []MissingChart
	remote []RemoteRef
}

type scrubbed struct {
	msg string
	err error
}

func (s scrubbed) Error() string { return s.msg }
func (s scrubbed) Unwrap() error { return s.err }

// renderKustomize builds appDir with the Kustomize SDK (krusty), as Argo CD's
// `kustomize build` does, with three differences that keep it safe in a
// plugin: reads are confined to the repository root (any path inside it may
// be loaded, as with --load-restrictor LoadRestrictionsNone), only built-in
// plugins run, and helmCharts are inflated through routeguard's own Helm SDK
// shim (opts.HelmCommand), so no helm binary is needed.
func renderKustomize(ctx context.Context, r *root, appDir string, opts Options) (*manifest.Set, leftOut, error) {
	if err := ctx.Err(); err != nil {
		return nil, leftOut{}, err
	}
	fsys := newConfinedFS(r, opts.AllowNetwork, opts.maxFileBytes())
	fsys.skipMissingCharts, fsys.missingSeen = opts.SkipMissingCharts, map[MissingChart]bool{}
	fsys.skipRemote = opts.SkipRemote && !opts.AllowNetwork
	if edit := opts.Kustomize.Edit; edit != nil {
		efs := newEditFS(r, appDir, opts.maxFileBytes())
		if err := edit(efs); err != nil {
			return nil, leftOut{}, fmt.Errorf("%s: editing the kustomization: %w", r.rel(appDir), err)
		}
		fsys.overlay = efs.overlay()
	}
	kopts := krusty.MakeDefaultOptions()
	kopts.LoadRestrictions = types.LoadRestrictionsNone
	kopts.Reorder = krusty.ReorderOptionLegacy
	kopts.PluginConfig = types.MakePluginConfig(types.PluginRestrictionsBuiltinsOnly, types.BploUseStaticallyLinked)
	// helmCharts: Kustomize runs routeguard itself as its helm command, with
	// this render's root (see helmshim.go). Preparing it costs a directory,
	// a symlink and a small file.
	self, err := selfExecutable(opts)
	if err != nil {
		return nil, leftOut{}, err
	}
	command, cleanup, err := newHelmShim(self, helmShimConfig{Root: r.dir, AllowNetwork: opts.AllowNetwork, MaxFileBytes: opts.maxFileBytes(), UnpredictableRandom: opts.Helm.UnpredictableRandom, Guard: shimGuard()})
	if err != nil {
		return nil, leftOut{}, err
	}
	defer cleanup()
	kopts.PluginConfig.HelmConfig = types.HelmConfig{
		Enabled:     true,
		Command:     command,
		KubeVersion: opts.Helm.KubeVersion,
		ApiVersions: opts.Helm.APIVersions,
	}
	// Kustomize applies each patch to each object its target selects: 40
	// patches over 40 objects are 1,600 strategic merges, minutes of work
	// that krusty cannot be asked to stop. The --timeout watchdog ends it;
	// its message names this kustomization.
	defer guard.Begin(kustomizeLabel(r, appDir))()
	resMap, err := krusty.MakeKustomizer(kopts).Run(fsys, appDir)
	if helmShimWasUsed(command) {
		r.trace.Opaque("Kustomize helmCharts are rendered in a child process, which is not traced")
	}
	if fsys.refused != nil {
		return nil, leftOut{}, fsys.refused
	}
	if err != nil && strings.Contains(err.Error(), "cycle detected") {
		if chain := cycleChain(r, appDir); chain != "" {
			return nil, leftOut{}, fmt.Errorf("%s: kustomize build failed: the kustomizations form a cycle: %s; "+
				"a kustomization cannot include itself or a directory that contains it: remove one of these entries", r.rel(appDir), chain)
		}
	}
	if err != nil {
		err = fmt.Errorf("%s: kustomize build failed: %w", r.rel(appDir), scrubbed{r.relativize(scrubHelmShim(err.Error(), command)), err})
		if helmShimWasAskedToPull(command) {
			return nil, leftOut{}, &NotFetchedError{msg: err.Error(), err: err}
		}
		if len(fsys.missing) > 0 {
			// Without them the build fails (a patch targets what a chart
			// makes): the app needs them, as when they are pulled.
			return nil, leftOut{}, &NotFetchedError{msg: fmt.Sprintf("%s is not in the repository (Kustomize helmCharts; routeguard never downloads them), and the build fails without it: %v", fsys.missing[0], err), err: err}
		}
		if len(fsys.remote) > 0 {
			return nil, leftOut{}, &NotFetchedError{msg: fmt.Sprintf("%s, which routeguard does not fetch offline (--allow-network), and the build fails without it: %v", fsys.remote[0], err), err: err}
		}
		if opts.AllowNetwork && networkFailure(err) {
			return nil, leftOut{}, &NotFetchedError{msg: "a remote resource could not be fetched (the network failed): " + err.Error(), err: err, tried: true}
		}
		return nil, leftOut{}, err
	}
	keepOrigins := false
	for _, n := range kustomizationFileNames {
		if data, err := r.readFile(filepath.Join(appDir, n), opts.maxFileBytes()); err == nil {
			keepOrigins = userWantsOrigins(data)
			break
		}
	}
	lines := newLineFinder(r, opts.maxFileBytes())
	set := manifest.NewSet()
	for i, res := range resMap.Resources() {
		body, err := res.Map()
		if err != nil {
			return nil, leftOut{}, fmt.Errorf("%s: kustomize output %d: %w", r.rel(appDir), i, err)
		}
		src := manifest.Source{File: r.rel(appDir), Doc: i}
		var fields *manifest.FieldIndex
		if origin := res.GetAnnotations()[originAnnotation]; origin != "" {
			src, fields = lines.origin(appDir, origin, res.GetKind(), res.GetName(), src)
			if !keepOrigins {
				manifest.DeleteAnnotation(body, originAnnotation)
			}
		}
		o, err := manifest.FromBody(body, src)
		if err != nil {
			return nil, leftOut{}, err
		}
		// Lines of fields as written in the resource's file; a field that a
		// patch or transformer added is not there, and its finding points
		// at the nearest field that is.
		o.Fields = fields
		if err := set.Add(o); err != nil {
			return nil, leftOut{}, err
		}
	}
	if len(fsys.missing) > 0 && set.Len() == 0 {
		// Nothing but charts routeguard does not have: not rendered at all.
		return nil, leftOut{}, &NotFetchedError{msg: fmt.Sprintf("%s is not in the repository: %s", fsys.missing[0], notDownloaded)}
	}
	if len(fsys.remote) > 0 && set.Len() == 0 {
		return nil, leftOut{}, &NotFetchedError{msg: fmt.Sprintf("%s, which routeguard does not fetch offline; pass --allow-network, or vendor it into the repository", fsys.remote[0])}
	}
	return set, leftOut{charts: fsys.missing, remote: fsys.remote}, nil
}

// kustomizeLabel names the build for the watchdog's message: "the
// Kustomize build of apps/x/kustomization.yaml (40 patches)".
func kustomizeLabel(r *root, appDir string) string {
	file, m := readKustomization(r, appDir)
	if m == nil {
		return "the Kustomize build of " + r.rel(appDir)
	}
	patches := 0
	for _, f := range []string{"patches", "patchesStrategicMerge", "patchesJson6902"} {
		patches += len(seqItems(mappingValue(m, f)))
	}
	label := "the Kustomize build of " + r.rel(file)
	if patches > 0 {
		label += fmt.Sprintf(" (%d patches, each applied to every object its target selects)", patches)
	}
	return label
}

// lineFinder maps a Kustomize origin (file relative to the build directory)
// to the line of the object in that file, decoding each file once.
type lineFinder struct {
	root  *root
	max   int64
	files map[string][]*manifest.Object
}

func newLineFinder(r *root, max int64) *lineFinder {
	return &lineFinder{root: r, max: max, files: map[string][]*manifest.Object{}}
}

type kustomizeOrigin struct {
	Path         string `json:"path"`
	Repo         string `json:"repo"`
	ConfiguredIn string `json:"configuredIn"`
}

// origin maps a Kustomize origin (file relative to the build directory) to
// the object's source in that file and the lines of its fields (nil when
// the object is not found there).
func (l *lineFinder) origin(appDir, originYAML, kind, name string, fallback manifest.Source) (manifest.Source, *manifest.FieldIndex) {
	var o kustomizeOrigin
	if err := kyaml.Unmarshal([]byte(originYAML), &o); err != nil || o.Repo != "" {
		return fallback, nil
	}
	rel := o.Path
	if rel == "" {
		rel = o.ConfiguredIn // generated objects point at their generator config
	}
	if rel == "" {
		return fallback, nil
	}
	p := filepath.Join(appDir, rel)
	src := manifest.Source{File: l.root.rel(p), Doc: fallback.Doc}
	objs, ok := l.files[p]
	if !ok {
		if data, err := l.root.readFile(p, l.max); err == nil {
			objs, _ = manifest.Decode(src.File, data)
		}
		l.files[p] = objs
	}
	// Prefer the same kind and name; transformers (namePrefix/nameSuffix)
	// may have changed the name, so fall back to a name contained in it,
	// then to the only object of that kind.
	var byKind []*manifest.Object
	for _, obj := range objs {
		if obj.Kind != kind {
			continue
		}
		if obj.Name == name {
			return obj.Source, obj.Fields
		}
		byKind = append(byKind, obj)
	}
	for _, obj := range byKind {
		if strings.Contains(name, obj.Name) {
			return obj.Source, obj.Fields
		}
	}
	if len(byKind) == 1 {
		return byKind[0].Source, byKind[0].Fields
	}
	return src, nil
}
