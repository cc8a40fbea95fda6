package flux

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/routeguard/routeguard/internal/charts"
	"github.com/routeguard/routeguard/internal/manifest"
)

// One BuildTree run is four parts, each with its own state and files:
//
//   - workspace (workspace.go, checkout.go): this checkout, the scratch
//     directories and filtered copies Kustomize builds in, the memos that
//     share work between workers;
//   - sources (sources.go, artifact.go, chart.go, ready.go): what the
//     cluster holds (state) and where a Flux source's content is (a mapped
//     directory, this checkout, an assembled artifact, a chart);
//   - nodeRender (kustomization.go, substitution.go, helmrelease.go):
//     building one Kustomization or HelmRelease from its sources;
//   - builder (tree.go, order.go, entry.go, result.go): the tree itself,
//     built in waves in dependency order, and its result.

// workspace is the files of one run.
type workspace struct {
	root string // this checkout, absolute, symlinks resolved
	// maxFileBytes is the size limit of a file read (Options.MaxFileBytes;
	// 0: manifest.DefaultMaxFileBytes).
	maxFileBytes int64

	mu       sync.Mutex
	memos    map[string]*memoEntry
	tmp      string
	cleanups []func()
	// checkouts: each filtered copy of a source directory (what Kustomize
	// builds in) and the directory it copies, to name files in messages.
	checkouts map[string]string
	// oversized: files of the filtered copies over the size limit.
	oversized oversizedFiles
}

type memoEntry struct {
	once sync.Once
	v    any
	err  error
}

// sources knows what the cluster holds and where sources are.
type sources struct {
	*workspace
	opts   Options
	mapped map[SourceKey]string
	// self: the GitRepositories that are this checkout.
	self   map[SourceKey]bool
	charts *charts.Cache
	// state is what the cluster holds so far (rebuilt by builder.restate).
	state *state
	// selfNotes: GitRepositories taken for this checkout by a guess;
	// guessed says why each was (for a path that is not here).
	selfNotes []string
	guessed   map[SourceKey]string
	// fluxVersion: with StrictAuto, what the tree says of the
	// kustomize-controller it installs (read once per run).
	fluxVersion FluxVersion
	// entryApplied: what a cluster directory without a sync Kustomization
	// applies directly (the entry scan), kept so the state can be rebuilt
	// (and, for a file built alone, its parent's variables are placeholders).
	entryApplied *Node
}

// nodeRender builds single Kustomizations and HelmReleases.
type nodeRender struct {
	*sources
}

// builder holds one BuildTree run: the nodes of the tree.
type builder struct {
	*nodeRender
	nodes []*Node
	byKey map[manifest.Key]*Node
	// Non-object YAML files the entry scan left out (verbose output).
	skippedFiles []string
}

func newBuilder(opts Options) (*builder, error) {
	root, err := filepath.Abs(opts.RepoRoot)
	if err != nil {
		return nil, err
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return nil, fmt.Errorf("repository root %s: %w", opts.RepoRoot, err)
	}
	ws := &workspace{root: root, maxFileBytes: opts.MaxFileBytes, memos: map[string]*memoEntry{}}
	src := &sources{workspace: ws, opts: opts, mapped: map[SourceKey]string{}, self: map[SourceKey]bool{}, state: newState(), charts: opts.Charts}
	b := &builder{nodeRender: &nodeRender{sources: src}, byKey: map[manifest.Key]*Node{}}
	if opts.Strict == StrictAuto {
		src.fluxVersion = DetectFluxVersion(root, opts.MaxFileBytes)
	}
	for k, p := range opts.Sources {
		dir, err := filepath.Abs(p)
		if err == nil {
			dir, err = filepath.EvalSymlinks(dir)
		}
		if err != nil || !isDir(dir) {
			return nil, fmt.Errorf("--source %s=%s: no such directory", k, p)
		}
		b.mapped[k] = dir
	}
	if b.charts == nil && (opts.AllowNetwork || opts.FetchCharts) {
		c, cleanup, err := charts.Temporary()
		if err != nil {
			return nil, err
		}
		b.charts = c
		b.cleanups = append(b.cleanups, cleanup)
	}
	return b, nil
}
