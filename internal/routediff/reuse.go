package routediff

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/pipeline"
)

// A path is rendered once, at head, with a trace of everything the render
// observes of the repository (confine.Trace): the files it reads wherever
// they are (the app's own, Kustomize bases and components, Helm values
// files and local chart dependencies, .routeguard.yaml), the paths it
// looks at, the directories it lists and where symbolic links lead. A
// render is a function of those observations, so when each of them comes
// out the same in the base revision, the base would render the same
// objects and the path is not rendered, nor analyzed, again: its objects
// enter both route maps (where a change elsewhere, a Gateway listener
// removed, can still change where its routes attach), and its findings
// would be the same on both sides. Anything the trace cannot vouch for
// makes the path rendered and analyzed at both revisions: reads in a child
// process (Kustomize helmCharts), remote bases and chart dependencies,
// trees outside the repository, and contextPaths (rendered by the
// analysis, not by the render).
type firstRender struct {
	out   *pipeline.Outcome
	trace *confine.Trace
	err   error
	// analyzed is the same render analyzed (Options.AnalyzeKeep), when
	// every path is analyzed at head.
	analyzed *pipeline.Outcome
}

// renderHead renders (without analysis) every path that exists at head,
// tracing each render; with analyzed (and Options.AnalyzeKeep) each
// render is analyzed too.
func renderHead(ctx context.Context, opts Options, t *Trees, rels []string, analyzed bool) (map[string]firstRender, error) {
	var todo []string
	for _, rel := range rels {
		if exists(t.HeadRoot, rel) {
			todo = append(todo, rel)
		}
	}
	keep := analyzed && opts.AnalyzeKeep != nil
	var mu sync.Mutex
	analyzedOf := map[string]*pipeline.Outcome{}
	res, err := renderAll(todo, t.head, true, false, func(rel string, tr *confine.Trace) (*pipeline.Outcome, error) {
		path := filepath.Join(t.HeadRoot, filepath.FromSlash(rel))
		if !keep {
			return opts.Analyze(ctx, path, t.HeadRoot, false, tr)
		}
		prepared, out, err := opts.AnalyzeKeep(ctx, path, t.HeadRoot, tr)
		mu.Lock()
		analyzedOf[rel] = out
		mu.Unlock()
		return prepared, err
	}, nil)
	if err != nil {
		return nil, err
	}
	m := make(map[string]firstRender, len(todo))
	for i, rel := range todo {
		m[rel] = firstRender{out: res[i].out, trace: res[i].trace, err: res[i].err, analyzed: analyzedOf[rel]}
	}
	return m, nil
}

// reusable reports whether the head render f of the path at rel stands for
// the base revision as well.
func reusable(f firstRender, c *confine.Comparer, baseRoot, rel string) bool {
	if f.err != nil || f.out == nil || !exists(baseRoot, rel) {
		return false
	}
	if f.out.Config != nil && len(f.out.Config.ContextPaths) > 0 {
		return false
	}
	same, _ := c.Same(f.trace)
	return same
}

func exists(root, rel string) bool {
	_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	return !errors.Is(err, fs.ErrNotExist)
}
