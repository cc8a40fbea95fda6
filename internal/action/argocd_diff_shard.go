package action

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/routeguard/routeguard/internal/argocd"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/routediff"
	"github.com/routeguard/routeguard/internal/shard"
)

// A shard of argocd diff (--shard I/N) builds, at both revisions, only the
// Applications its shard holds (shard.Of of each Application's kind,
// namespace and name), and writes what they rendered to a shard file
// (ShardFile): it does not analyze or compare, because the cluster
// analysis and the routing review span Applications (a route attaches to
// another Application's Gateway, a backend is in a third). routeguard
// report merge (report_merge.go) reads every shard's file, builds both
// revisions again from them without rendering anything, and runs the
// review once over every object: the same review, byte for byte, as
// argocd diff without --shard.
//
// An Application that renders other Applications (an app of apps) must
// be rendered by every shard, or the shards would not find its children:
// a shard renders an Application it does not hold when any file under its
// sources' paths mentions argoproj.io, and leaves the others out. Each
// shard file lists what it left out, and the merge refuses shards one of
// which left out an Application that rendered Applications in its own
// shard (a layout the scan did not recognise), naming it.

// shardOptions checks that a's options can be carried to the merge and
// returns them.
func (a *ArgoCDDiff) shardOptions(rels []string) (ShardOptions, error) {
	for _, f := range []struct{ flag, v string }{
		{"--config", a.Analysis.ConfigFile}, {"--plugins", a.Analysis.Plugins}, {"--crd-dir", a.Analysis.Cluster.CRDDir},
		{"--project-file", strings.Join(a.ArgoCD.ProjectFiles, ",")}, {"--changed-from", a.Changed.From}, {"--changed-files", a.Changed.Files},
	} {
		if f.v != "" {
			return ShardOptions{}, fmt.Errorf("--shard does not take %s yet (the merge would read that file or list); run the review without --shard", f.flag)
		}
	}
	return ShardOptions{Paths: rels, Review: a.Review, IgnorePointers: a.IgnorePointers, CodeOwners: a.CodeOwners,
		RepoURLs: a.ArgoCD.RepoURLs, Clusters: a.ArgoCD.Clusters, AppNamespace: a.ArgoCD.AppNamespace,
		KubeVersion: a.ArgoCD.KubeVersion, APIVersions: a.ArgoCD.APIVersions, Revision: a.ArgoCD.Revision,
		PluginDiscovery: a.ArgoCD.PluginDiscovery, NewGitFileGlobbing: a.ArgoCD.NewGitFileGlobbing,
		MaxFileMiB: a.ArgoCD.MaxFileMiB, Now: a.ArgoCD.Now, AllowNetwork: a.ArgoCD.AllowNetwork, FetchCharts: a.ArgoCD.FetchCharts,
		GatewayAPIChannel: a.Analysis.Cluster.GatewayAPIChannel}, nil
}

// appID is the shard identity of app.
func appID(app *argocd.Application) shard.ID {
	return shard.ID{Kind: "Application", Namespace: app.Namespace, Name: app.Name}
}

// RunShard builds the shard's Applications at both revisions (paths as
// Run takes them) and returns the shard file.
func (a *ArgoCDDiff) RunShard(ctx context.Context, env Env, spec shard.Spec, paths []string) (*ShardFile, error) {
	if err := spec.Validate(); err != nil || spec.Count == 0 {
		return nil, errors.New("--shard: want I/N")
	}
	if a.Review == "" {
		a.Review = string(routediff.ReviewRouting)
	}
	if !slices.Contains(routediff.Reviews, a.Review) {
		return nil, fmt.Errorf("--diff must be %s, got %q", strings.Join(routediff.Reviews, ", "), a.Review)
	}
	t, err := routediff.Checkout(routediff.Options{Dir: env.workDir(), Base: a.Base, Head: a.Head, Paths: paths})
	if err != nil {
		return nil, err
	}
	defer t.Close()
	opts, err := a.shardOptions(t.Rels)
	if err != nil {
		return nil, err
	}
	out := &ShardFile{Format: ShardFormat, Version: ShardVersion, Command: "argocd diff", Base: t.Base, Head: t.Head,
		Index: spec.Index, Count: spec.Count, Options: opts, Apps: []string{}, LeftOut: []string{}}
	if a.ArgoCD.Now == "" {
		a.ArgoCD.Now = time.Now().UTC().Format(time.RFC3339)
	}
	held := map[string]bool{}
	var left sync.Map
	var scan parentScan
	var errs [2]error
	var wg sync.WaitGroup
	for i, root := range []string{t.BaseRoot, t.HeadRoot} {
		wg.Go(func() {
			o := a.ArgoCD
			o.RepoRoot = root
			o.tune = func(bo *argocd.Options) {
				bo.Reuse = func(app *argocd.Application) (*argocd.AppResult, bool) {
					if spec.Holds(appID(app)) || scan.rendersApplications(root, app) {
						return nil, false
					}
					left.Store(app.Key(), true)
					return &argocd.AppResult{App: app, Set: manifest.NewSet()}, true
				}
			}
			o.Progress = func(app *argocd.AppResult) {
				if spec.Holds(appID(app.App)) {
					a.done(root, "Application", app.App.Key(), app.Status())
				}
			}
			rootPaths := make([]string, len(t.Rels))
			for j, r := range t.Rels {
				rootPaths[j] = filepath.Join(root, filepath.FromSlash(r))
			}
			res, err := o.build(ctx, env, rootPaths)
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", []string{"base", "head"}[i], err)
				return
			}
			for _, app := range res.Apps {
				if !spec.Holds(appID(app.App)) {
					continue
				}
				c, err := argocd.Carry(app, root)
				if err != nil {
					errs[i] = err
					return
				}
				out.Revisions[i].Apps = append(out.Revisions[i].Apps, c)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			for _, root := range []string{t.BaseRoot, t.HeadRoot} {
				err = errors.New(strings.ReplaceAll(err.Error(), root+string(filepath.Separator), ""))
			}
			return nil, err
		}
	}
	for _, r := range out.Revisions {
		for _, c := range r.Apps {
			held[appIDOfKey(c.Key).String()] = true
		}
	}
	for id := range held {
		out.Apps = append(out.Apps, id)
	}
	slices.Sort(out.Apps)
	left.Range(func(k, _ any) bool { out.LeftOut = append(out.LeftOut, k.(string)); return true })
	slices.Sort(out.LeftOut)
	out.LeftOut = slices.Compact(out.LeftOut)
	for i := range out.Revisions {
		if out.Revisions[i].Apps == nil {
			out.Revisions[i].Apps = []argocd.Carried{}
		}
	}
	return out, nil
}

// appIDOfKey is the identity of the Application with key "ns/name" or
// "ns/name@twin".
func appIDOfKey(key string) shard.ID {
	k, _, _ := strings.Cut(key, "@")
	ns, name, _ := strings.Cut(k, "/")
	return shard.ID{Kind: "Application", Namespace: ns, Name: name}
}

// maxParentScan bounds the files the app-of-apps scan reads per source.
const maxParentScan = 5000

// parentScan remembers, per directory, whether a file under it mentions
// argoproj.io (Applications of one chart or base share their source's
// directory: each is read once).
type parentScan struct{ dirs sync.Map }

// rendersApplications reports whether a file under the path of one of
// app's sources in the checkout at root mentions argoproj.io (the API
// group of Application and ApplicationSet): then the app may render
// Applications, and every shard renders it.
func (s *parentScan) rendersApplications(root string, app *argocd.Application) bool {
	for _, src := range app.Spec.AllSources() {
		if src.Path == "" {
			continue
		}
		dir := filepath.Join(root, filepath.FromSlash(path.Clean("/"+src.Path)))
		found, ok := s.dirs.Load(dir)
		if !ok {
			found, _ = s.dirs.LoadOrStore(dir, mentionsArgoCD(root, dir))
		}
		if found.(bool) {
			return true
		}
	}
	return false
}

// mentionsArgoCD reports whether a file under dir (in the checkout at
// root) mentions argoproj.io; a directory of more than maxParentScan
// files counts as mentioning it, a file that cannot be read as not.
func mentionsArgoCD(root, dir string) bool {
	return shard.Mentions(root, dir, shard.ScanOptions{MaxFiles: maxParentScan, MaxFileBytes: manifest.DefaultMaxFileBytes}, "argoproj.io")
}
