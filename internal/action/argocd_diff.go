package action

import (
	"cmp"
	"context"
	"sync"
	"time"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/argocd"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/manifestdiff"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/routediff"
)

// ArgoCDDiff compares the routing of every Application at two revisions
// (routeguard argocd diff): each revision is built (in full, or at base
// only what the change can affect: Changed) and analyzed as argocd
// analyze does.
type ArgoCDDiff struct {
	DiffOptions
	ArgoCD   ArgoCDOptions
	Analysis AnalysisOptions
	Changed  ChangedOptions

	// merged, when set (report merge), gives every Application's render
	// from the shards of the review.
	merged *merged
}

// Run compares the Applications found from paths (none: the working
// directory).
func (a *ArgoCDDiff) Run(ctx context.Context, env Env, paths []string) (*routediff.Result, error) {
	if a.ArgoCD.Now == "" { // one time for both revisions
		a.ArgoCD.Now = time.Now().UTC().Format(time.RFC3339)
	}
	req, err := a.Changed.request(env, &a.DiffOptions)
	if err != nil {
		return nil, err
	}
	var ignore appIgnores
	return a.compare(ctx, env, paths, routediff.Options{ConfigFile: a.Analysis.ConfigFile,
		Pair: func(ctx context.Context, baseRoot, headRoot string, rels []string) (*pipeline.Outcome, *pipeline.Outcome, *routediff.AppCounts, error) {
			return a.pair(ctx, env, req, baseRoot, headRoot, rels, &ignore)
		},
		Manifests: routediff.ManifestOptions{Ignore: ignore.of}})
}

// outcome analyzes every Application built from the revision checked out
// at root, as one outcome (all clusters).
func (a *ArgoCDDiff) outcome(ctx context.Context, env Env, root string, res *argocd.Result, ignore *appIgnores) (*pipeline.Outcome, error) {
	o := a.ArgoCD
	an := a.Analysis
	an.FailOn = analysis.FailOnUnset // the diff fails on introduced findings (--fail-on-new)
	outcomes, err := o.analyze(ctx, env, res, an)
	if err != nil {
		return nil, err
	}
	out := &pipeline.Outcome{Set: manifest.NewSet(), RepoRoot: root, Owners: map[manifest.Key]pipeline.Owner{}}
	out.Notices = buildNotices(res)
	projects := map[string]string{}
	for _, a := range res.Apps {
		projects[a.App.Key()] = cmp.Or(a.App.Spec.Project, "default")
	}
	out.Unbuilt = res.Unbuilt()
	var all []analysis.Finding
	for _, c := range outcomes {
		for k, app := range c.Cluster.Owner {
			if _, dup := out.Owners[k]; !dup {
				out.Owners[k] = pipeline.Owner{Kind: "Application", Name: app, Project: projects[app]}
			}
		}
		for _, obj := range c.Cluster.Set.Objects() {
			if _, dup := out.Set.Get(obj.Key()); !dup {
				if err := out.Set.Add(obj); err != nil {
					return nil, err
				}
			}
		}
		all = append(all, c.Findings...)
		out.Notices = append(out.Notices, c.Notices...)
	}
	out.Findings = all
	ignore.record(out, res.Apps)
	return out, nil
}

// appIgnores keeps each revision's Applications' ignoreDifferences, by
// the outcome built from them, for the manifest diff.
type appIgnores struct {
	mu    sync.Mutex
	rules map[*pipeline.Outcome]appIgnore
}

type appIgnore struct {
	pointers map[manifestdiff.App][]manifestdiff.Pointer
	notices  []manifestdiff.Notice
}

func (a *appIgnores) record(out *pipeline.Outcome, apps []*argocd.AppResult) {
	r := appIgnore{pointers: map[manifestdiff.App][]manifestdiff.Pointer{}}
	for _, app := range apps {
		if app.App.Object == nil {
			continue
		}
		ps, ns := manifestdiff.IgnoreDifferences(app.App.Object.Body, "Application "+app.App.Key())
		if len(ps) > 0 {
			r.pointers[manifestdiff.App{Kind: "Application", Name: app.App.Key()}] = ps
		}
		r.notices = append(r.notices, ns...)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.rules == nil {
		a.rules = map[*pipeline.Outcome]appIgnore{}
	}
	a.rules[out] = r
}

// of is routediff.ManifestOptions.Ignore: the rules of the revision out
// was built from.
func (a *appIgnores) of(out *pipeline.Outcome) (map[manifestdiff.App][]manifestdiff.Pointer, []manifestdiff.Notice) {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := a.rules[out]
	return r.pointers, r.notices
}
