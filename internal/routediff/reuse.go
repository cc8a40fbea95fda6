package routediff

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

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
}

// renderHead renders (without analysis) every path that exists at head,
// tracing each render.
func renderHead(ctx context.Context, opts Options, headRoot string, rels []string) map[string]firstRender {
	var todo []string
	for _, rel := range rels {
		if exists(headRoot, rel) {
			todo = append(todo, rel)
		}
	}
	res := make([]firstRender, len(todo))
	eachIndex(len(todo), func(i int) {
		t := confine.NewTrace()
		out, err := opts.Analyze(ctx, filepath.Join(headRoot, filepath.FromSlash(todo[i])), headRoot, false, t)
		res[i] = firstRender{out: out, trace: t, err: err}
	})
	m := make(map[string]firstRender, len(todo))
	for i, rel := range todo {
		m[rel] = res[i]
	}
	return m
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
