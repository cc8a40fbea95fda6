package action

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/routeguard/routeguard/internal/argocd"
	"github.com/routeguard/routeguard/internal/flux"
	"github.com/routeguard/routeguard/internal/guard"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/routediff"
	"github.com/routeguard/routeguard/internal/shard"
)

// DefaultMaxShardMiB bounds a shard file (routeguard report merge
// --max-shard-size).
const DefaultMaxShardMiB = 1024

// ReportMerge joins the shard files of one review (argocd diff --shard
// I/N, argocd_diff_shard.go) into the review (routeguard report merge).
// The shards carry what their Applications rendered; the merge builds
// both revisions again from them (finding, adopting and expanding
// Applications as argocd diff does, rendering none), then analyzes each
// revision's cluster and compares once, over every object: the cluster
// analysis and the routing review span Applications, so per-shard
// results could not be joined (a route of one shard attaches to the
// Gateway of another). The result is the review argocd diff gives
// without --shard, byte for byte.
type ReportMerge struct {
	// MaxShardMiB bounds each shard file (0: DefaultMaxShardMiB).
	MaxShardMiB int64
	// Progress hears the merge's build (DiffOptions.Progress).
	Progress DiffProgress
	// AllHeadFindings: the review's reports want every finding of head
	// (DiffOptions.AllHeadFindings; routeguard diff's shards).
	AllHeadFindings bool
	// Taken and Built (after Run, flux diff's shards): the Kustomizations
	// and HelmReleases, over both revisions, taken from the shards and
	// built by the merge (not carried with the inputs the tree gave them).
	Taken, Built int
}

// Run reads and checks the shard files and returns the review.
func (m *ReportMerge) Run(ctx context.Context, env Env, files []string) (*routediff.Result, error) {
	shards, err := m.read(env, files)
	if err != nil {
		return nil, err
	}
	first := shards[0].file
	switch first.Command {
	case "flux diff":
		return m.runFlux(ctx, env, shards)
	case "diff":
		return m.runDiff(ctx, env, shards, m.AllHeadFindings)
	}
	o := first.Options
	a := &ArgoCDDiff{}
	a.Base, a.Head = cmpOr(first.Base.Hash, first.Base.Name), first.Head.Hash
	a.Review, a.IgnorePointers, a.CodeOwners, a.Progress = o.Review, o.IgnorePointers, o.CodeOwners, m.Progress
	a.ArgoCD = ArgoCDOptions{RepoURLs: o.RepoURLs, Clusters: o.Clusters, AppNamespace: o.AppNamespace,
		KubeVersion: o.KubeVersion, APIVersions: o.APIVersions, Revision: o.Revision, PluginDiscovery: o.PluginDiscovery,
		NewGitFileGlobbing: o.NewGitFileGlobbing, MaxFileMiB: o.MaxFileMiB, Now: o.Now,
		AllowNetwork: o.AllowNetwork, FetchCharts: o.FetchCharts}
	a.Analysis.Cluster.GatewayAPIChannel = o.GatewayAPIChannel
	a.merged = newMerged(shards)
	paths, err := mergePaths(env, o)
	if err != nil {
		return nil, err
	}
	res, err := a.Run(ctx, env, paths)
	if err != nil {
		return nil, err
	}
	if err := a.merged.check(); err != nil {
		return nil, err
	}
	return renamed(res, first)
}

// runFlux merges the shards of a flux diff: the tree is built again at
// both revisions, each node taken from the shard that built it from the
// same object and cluster inputs, and built here otherwise
// (flux_diff_shard.go).
func (m *ReportMerge) runFlux(ctx context.Context, env Env, shards []readShard) (*routediff.Result, error) {
	first := shards[0].file
	o := first.Options
	a := &FluxDiff{}
	a.Base, a.Head = cmpOr(first.Base.Hash, first.Base.Name), first.Head.Hash
	a.Review, a.IgnorePointers, a.CodeOwners, a.Progress = o.Review, o.IgnorePointers, o.CodeOwners, m.Progress
	a.Tree.Strict, _ = flux.ParseStrictName(o.Strict) // checked on reading
	a.Tree.AllowNetwork, a.Tree.FetchCharts, a.Tree.KubeVersion, a.Tree.Vars = o.AllowNetwork, o.FetchCharts, o.KubeVersion, o.Vars
	a.Analysis.Cluster.GatewayAPIChannel = o.GatewayAPIChannel
	a.merged = newFluxMerged(shards)
	paths, err := mergePaths(env, o)
	if err != nil {
		return nil, err
	}
	if top, err := render.FindRepoRoot(env.workDir()); err == nil {
		a.Tree.Sources, a.confineSources = mergeSources(o.Sources, top), true
	}
	res, err := a.Run(ctx, env, paths)
	if err != nil {
		return nil, err
	}
	taken, built, err := a.merged.counts()
	if err != nil {
		return nil, fmt.Errorf("a shard file: %w", err)
	}
	m.Taken, m.Built = taken, built
	return renamed(res, first)
}

// mergePaths are the shards' paths in the repository of the working
// directory.
func mergePaths(env Env, o ShardOptions) ([]string, error) {
	top, err := render.FindRepoRoot(env.workDir())
	if err != nil {
		return nil, fmt.Errorf("report merge runs in the repository the shards reviewed: %w", err)
	}
	paths := make([]string, len(o.Paths))
	for i, p := range o.Paths {
		paths[i] = filepath.Join(top, filepath.FromSlash(p))
	}
	return paths, nil
}

// renamed checks that res is of the shards' revisions and names them as
// the shards were given them (HEAD, origin/main): they were resolved by
// hash.
func renamed(res *routediff.Result, first *ShardFile) (*routediff.Result, error) {
	if res.Base.Hash != first.Base.Hash || res.Head.Hash != first.Head.Hash {
		return nil, fmt.Errorf("the shards are of %s → %s, this checkout has %s → %s", revName(first.Base), revName(first.Head), revName(res.Base), revName(res.Head))
	}
	res.Base.Name, res.Head.Name = first.Base.Name, first.Head.Name
	return res, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

type readShard struct {
	name string
	file *ShardFile
}

// read reads every shard file (bounded, strict JSON) and checks that
// they are the shards of one review: the same format version, command,
// revisions, options and N, every index 1..N once, every Application in
// the shard its identity falls in and in one shard only.
func (m *ReportMerge) read(env Env, files []string) ([]readShard, error) {
	if len(files) == 0 {
		return nil, errors.New("name the shard files (diff, argocd diff or flux diff --shard I/N --shard-out FILE) to merge")
	}
	limit := m.MaxShardMiB
	if limit <= 0 {
		limit = DefaultMaxShardMiB
	}
	var out []readShard
	for _, name := range files {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(env.workDir(), p)
		}
		f, err := readShardFile(p, limit<<20)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, readShard{name: name, file: f})
	}
	first := out[0]
	byIndex := map[int]string{}
	owner := map[string]string{}
	for _, s := range out {
		f := s.file
		switch {
		case f.Command != first.file.Command:
			return nil, fmt.Errorf("%s: a shard of %q, %s is of %q: merge the shards of one review", s.name, f.Command, first.name, first.file.Command)
		case f.Base != first.file.Base || f.Head != first.file.Head:
			return nil, fmt.Errorf("%s: a shard of %s → %s, %s is of %s → %s: merge the shards of one pair of revisions", s.name,
				revName(f.Base), revName(f.Head), first.name, revName(first.file.Base), revName(first.file.Head))
		case f.Count != first.file.Count:
			return nil, fmt.Errorf("%s: shard %d/%d, %s is shard %d/%d: every shard of a review has the same N", s.name, f.Index, f.Count, first.name, first.file.Index, first.file.Count)
		case !reflect.DeepEqual(f.Options, first.file.Options):
			return nil, fmt.Errorf("%s: built with other options than %s (%s): run every shard with the same flags and paths", s.name, first.name, optionsDiff(f.Options, first.file.Options))
		}
		if prev, dup := byIndex[f.Index]; dup {
			return nil, fmt.Errorf("%s: shard %d/%d again (%s is that shard too)", s.name, f.Index, f.Count, prev)
		}
		byIndex[f.Index] = s.name
		for _, id := range f.Apps {
			if prev, dup := owner[id]; dup {
				return nil, fmt.Errorf("%s: %s is in %s too: %s is in one shard only", s.name, id, prev, heldBy(f.Command))
			}
			owner[id] = s.name
		}
	}
	var missing []string
	for i := 1; i <= first.file.Count; i++ {
		if _, ok := byIndex[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, first.file.Count))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("shard %s missing (got %d of %d shard files): give every shard's file", strings.Join(missing, ", "), len(out), first.file.Count)
	}
	// Shards in index order: the merge does not depend on the order the
	// files are named in.
	sort.Slice(out, func(i, j int) bool { return out[i].file.Index < out[j].file.Index })
	return out, nil
}

func revName(r routediff.Rev) string {
	if r.Hash == "" {
		return r.Name
	}
	return r.Name + " (" + r.Hash + ")"
}

// optionsDiff names the options a and b differ in.
func optionsDiff(a, b ShardOptions) string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	var out []string
	for i := range va.NumField() {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			tag, _, _ := strings.Cut(va.Type().Field(i).Tag.Get("json"), ",")
			out = append(out, tag)
		}
	}
	return strings.Join(out, ", ")
}

// readShardFile reads one shard file of at most limit bytes and checks
// its header and that each Application it carries is in its shard.
func readShardFile(path string, limit int64) (*ShardFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d MiB (--max-shard-size): not a shard file, or raise the bound", limit>>20)
	}
	// A shard file is the merge's input, as a repository's files are a
	// render's: the automatic memory ceiling grows with it (a merge of
	// 2,000 Applications' renders, 15 MB of shard files, stopped at the
	// 256 MiB baseline when they were not counted).
	guard.Reading(filepath.Base(path), len(data))
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil || head.Format != ShardFormat {
		return nil, fmt.Errorf("not a routeguard shard file (want JSON with \"format\": %q, as argocd diff and flux diff --shard-out write)", ShardFormat)
	}
	if head.Version != ShardVersion {
		return nil, fmt.Errorf("shard file version %d; this routeguard reads version %d: merge with the routeguard that wrote the shards", head.Version, ShardVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var sf ShardFile
	if err := dec.Decode(&sf); err != nil {
		return nil, fmt.Errorf("shard file: %w", err)
	}
	spec := shard.Spec{Index: sf.Index, Count: sf.Count}
	if err := spec.Validate(); err != nil || sf.Count == 0 {
		return nil, fmt.Errorf("shard %d/%d: want 1 <= I <= N <= %d", sf.Index, sf.Count, shard.MaxCount)
	}
	listed := map[string]bool{}
	for _, id := range sf.Apps {
		listed[id] = true
	}
	if sf.Command != "diff" && len(sf.Paths) > 0 {
		return nil, fmt.Errorf("an %s shard carries no app paths", sf.Command)
	}
	switch sf.Command {
	case "diff":
		if err := checkDiffShard(&sf, spec); err != nil {
			return nil, err
		}
		return &sf, nil
	case "argocd diff":
	case "flux diff":
		if _, ok := flux.ParseStrictName(sf.Options.Strict); !ok {
			return nil, fmt.Errorf("options.strict %q: want true, false or auto", sf.Options.Strict)
		}
		if err := checkShardSources(sf.Options.Sources); err != nil {
			return nil, err
		}
		for i, r := range sf.Revisions {
			if len(r.Apps) > 0 {
				return nil, fmt.Errorf("%s revision: a flux diff shard carries no Applications", []string{"base", "head"}[i])
			}
			for _, b := range r.Nodes {
				id := b.ID()
				switch {
				case !spec.Holds(id):
					return nil, fmt.Errorf("%s revision: %s is not in shard %s (it falls in shard %d)", []string{"base", "head"}[i], id, spec, shard.Of(id, sf.Count))
				case !listed[id.String()]:
					return nil, fmt.Errorf("%s revision: %s is not among the shard's apps", []string{"base", "head"}[i], id)
				}
				if err := b.Check(); err != nil {
					return nil, fmt.Errorf("%s revision: %w", []string{"base", "head"}[i], err)
				}
			}
		}
		return &sf, nil
	default:
		return nil, fmt.Errorf("a shard of %q; report merge merges shards of \"diff\", \"argocd diff\" and \"flux diff\"", sf.Command)
	}
	if sf.Options.MaxFileMiB <= 0 {
		return nil, errors.New("options.maxFileMiB must be positive")
	}
	for i, r := range sf.Revisions {
		if len(r.Nodes) > 0 {
			return nil, fmt.Errorf("%s revision: an argocd diff shard carries no Flux nodes", []string{"base", "head"}[i])
		}
	}
	for i, r := range sf.Revisions {
		seen := map[string]bool{}
		for _, c := range r.Apps {
			id := appIDOfKey(c.Key)
			switch {
			case !spec.Holds(id):
				return nil, fmt.Errorf("%s revision: Application %s is not in shard %s (it falls in shard %d)", []string{"base", "head"}[i], c.Key, spec, shard.Of(id, sf.Count))
			case !listed[id.String()]:
				return nil, fmt.Errorf("%s revision: Application %s is not among the shard's apps", []string{"base", "head"}[i], c.Key)
			case seen[c.Key]:
				return nil, fmt.Errorf("%s revision: Application %s twice", []string{"base", "head"}[i], c.Key)
			}
			seen[c.Key] = true
		}
	}
	return &sf, nil
}

// merged are the Applications every shard rendered, by revision and key:
// the merge's builds take them instead of rendering.
type merged struct {
	apps    [2]map[string]argocd.Carried
	leftOut map[string]string // key -> the shard file that left it out
	owner   map[string]string // key -> the shard file holding it

	mu     sync.Mutex
	absent []string // asked for, carried by no shard
}

func newMerged(shards []readShard) *merged {
	m := &merged{leftOut: map[string]string{}, owner: map[string]string{}}
	for i := range m.apps {
		m.apps[i] = map[string]argocd.Carried{}
	}
	for _, s := range shards {
		for i, r := range s.file.Revisions {
			for _, c := range r.Apps {
				m.apps[i][c.Key] = c
				m.owner[c.Key] = s.name
			}
		}
		for _, k := range s.file.LeftOut {
			if _, ok := m.leftOut[k]; !ok {
				m.leftOut[k] = s.name
			}
		}
	}
	return m
}

// tune makes the build of revision rev (0 base, 1 head) at root take
// every Application's render from the shards.
func (m *merged) tune(rev int, root string, errp *error) func(*argocd.Options) {
	return func(o *argocd.Options) {
		o.TraceApps = false
		o.Reuse = func(app *argocd.Application) (*argocd.AppResult, bool) {
			c, ok := m.apps[rev][app.Key()]
			if !ok {
				m.mu.Lock()
				m.absent = append(m.absent, []string{"base", "head"}[rev]+" "+app.Key())
				m.mu.Unlock()
				return &argocd.AppResult{App: app, Err: errors.New("in no shard file")}, true
			}
			r, err := c.Result(app, root)
			if err != nil {
				m.mu.Lock()
				if *errp == nil {
					*errp = fmt.Errorf("%s: %w", m.owner[app.Key()], err)
				}
				m.mu.Unlock()
				return &argocd.AppResult{App: app, Err: err}, true
			}
			return r, true
		}
	}
}

// restore gives each Application of res the Reused flag its shard
// recorded (the build marks every result it took as reused).
func (m *merged) restore(rev int, res *argocd.Result) {
	for _, app := range res.Apps {
		if c, ok := m.apps[rev][app.App.Key()]; ok {
			app.Reused = c.Reused
		}
	}
}

// check says what the shards did not agree on: an Application no shard
// carried, or one a shard left out (not seen to render Applications)
// that did render Applications in its own shard, so that the shard that
// left it out missed what it renders.
func (m *merged) check() error {
	slices.Sort(m.absent)
	if len(m.absent) > 0 {
		return fmt.Errorf("%d Application(s) carried by no shard file (%s): the shards are not of this checkout, or not all given", len(m.absent), firstN(m.absent, 5))
	}
	var parents []string
	for k, name := range m.leftOut {
		for rev := range m.apps {
			if c, ok := m.apps[rev][k]; ok && c.Parent {
				parents = append(parents, fmt.Sprintf("%s (left out by %s)", k, name))
				break
			}
		}
	}
	slices.Sort(parents)
	if len(parents) > 0 {
		return fmt.Errorf("Application(s) %s render Applications, but a shard did not recognise them as an app of apps and so did not build their Applications; run argocd diff without --shard (and report the layout: files under their sources' paths do not mention argoproj.io)", firstN(parents, 5))
	}
	return nil
}

func firstN(s []string, n int) string {
	if len(s) <= n {
		return strings.Join(s, ", ")
	}
	return strings.Join(s[:n], ", ") + fmt.Sprintf(" and %d more", len(s)-n)
}

// heldBy names what a shard of command holds, for messages.
func heldBy(command string) string {
	switch command {
	case "diff":
		return "an app path"
	case "flux diff":
		return "a Kustomization, HelmRelease or ResourceSet"
	}
	return "an Application"
}
