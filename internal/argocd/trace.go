package argocd

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/notice"
)

// With Options.TraceApps each Application is rendered with a trace of
// everything its render observed of the repository (AppResult.Trace):
// what render.Render reads (Kustomize bases, components, generators'
// files, Helm charts and values files in Git) and what the builder itself
// looks at for the app (its source directories and their listing, the
// .argocd-source files, values files dropped as missing, optional
// components). What a trace cannot vouch for makes it opaque: globbed
// values files, charts from chart repositories, plugin sources.
//
// Options.Reuse lets a build take an Application's result from elsewhere
// instead of rendering it (affected-only reviews: the head build's result
// of an Application nothing of whose render changed).

type recordKey struct{}

// appRecord is what the render of one Application observed and noted.
type appRecord struct {
	trace *confine.Trace
	mu    sync.Mutex
	notes []notice.Notice
}

// withAppRecord carries the record of the Application being rendered.
func withAppRecord(ctx context.Context, r *appRecord) context.Context {
	return context.WithValue(ctx, recordKey{}, r)
}

// appTrace is the trace of the Application being rendered (nil: none).
func appTrace(ctx context.Context) *confine.Trace {
	if r, _ := ctx.Value(recordKey{}).(*appRecord); r != nil {
		return r.trace
	}
	return nil
}

// appWarn is warnf for what the render of the Application in ctx raises:
// kept with its result too, to be raised again where it is reused.
func (b *sourceRenderer) appWarn(ctx context.Context, format string, a ...any) {
	n := notice.Notice{Level: notice.Warning, Text: fmt.Sprintf(format, a...)}
	if r, _ := ctx.Value(recordKey{}).(*appRecord); r != nil {
		r.mu.Lock()
		r.notes = append(r.notes, n)
		r.mu.Unlock()
	}
	b.warnf("%s", n.Text)
}

// observe records that the render of the Application in ctx observed abs.
func (b *sourceRenderer) observe(ctx context.Context, kind confine.ObservationKind, abs string) {
	appTrace(ctx).Record(kind, b.repo.root, abs)
}

// ReuseFunc returns the result to use for app instead of rendering it, or
// false to render it.
type ReuseFunc func(app *Application) (*AppResult, bool)

// reused is the result r of another build taken for app: app's own
// definition (the same, or Reuse would not have offered it) with r's
// rendering; the notices r's render raised are raised again.
func (b *builder) reused(app *Application, r *AppResult) *AppResult {
	out := *r
	out.App = app
	out.Cluster = b.clusterOf(app.Spec.Destination)
	for _, n := range r.notes {
		b.note(n.Level, "%s", n.Text)
	}
	return &out
}

// observeValueFiles records the Helm values files and file parameters of
// src (as valueFiles and helmOptions resolve them): a file dropped as
// missing at one revision may exist at the other. A glob makes the trace
// opaque (it is matched through an fs.FS).
func (b *sourceRenderer) observeValueFiles(ctx context.Context, src Source, appDir string, refs map[string]Source, multi bool, env buildEnv) {
	t := appTrace(ctx)
	if t == nil || src.Helm == nil {
		return
	}
	raws := slices.Clone(src.Helm.ValueFiles)
	for _, fp := range src.Helm.FileParameters {
		raws = append(raws, fp.Path)
	}
	for _, raw := range raws {
		p, err := b.resolveValuePath(raw, appDir, appDir, refs, multi, env)
		switch {
		case err != nil: // the render fails, and says why
		case isGlob(p):
			t.Opaque("Helm values files matched by the glob " + raw)
		default:
			b.observe(ctx, confine.ObservedContent, p)
			b.observe(ctx, confine.ObservedTarget, p)
		}
	}
}
