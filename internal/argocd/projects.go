package argocd

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/argocd/appset"
	"github.com/routeguard/routeguard/internal/argocd/project"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
)

// The AppProjects of a build and the rules they apply to its
// Applications (package project).

// projectIndex files the AppProjects the scan found, those the
// Applications render (what Argo CD applies: they replace scanned ones)
// and those given (Options.Projects: they replace both).
func (b *builder) projectIndex(found *scanned) *project.Index {
	x := project.NewIndex(b.opts.AppNamespace)
	add := func(o *manifest.Object, origin string, rank project.Rank) {
		if o.Namespace == "" {
			o = withNamespace(o, b.opts.AppNamespace)
		}
		p, err := project.Decode(o, origin)
		if err != nil {
			b.note(notice.Warning, "%v; its rules are not checked", err)
			return
		}
		x.Add(p, rank)
	}
	for _, o := range found.projects {
		if kust := patchedBy(o.Source.File, found.projectPatches); kust != "" {
			// What Argo CD gets is the kustomization's output, not the file.
			b.note(notice.Warning, "AppProject %s (%s) is patched by %s, so Argo CD's copy differs from the file; it is not used (give the built project with --project-file)",
				o.Name, o.Source, kust)
			continue
		}
		add(o, "", project.Scanned)
	}
	for _, k := range slices.Sorted(mapsKeys(b.apps)) {
		r := b.apps[k]
		if r.Set == nil {
			continue
		}
		for _, o := range r.Set.Objects() {
			if project.IsProject(o) {
				add(o, "rendered by Application "+k, project.Rendered)
			}
			x.AddScoped(o)
		}
	}
	for _, p := range b.opts.Projects {
		x.Add(p, project.Given)
	}
	return x
}

// projectCheck is what the projects' rules found, by Application.
type projectCheck struct {
	checker *project.Checker
	byApp   map[string][]analysis.Finding
	notices map[string][]notice.Notice // by cluster server
	general []notice.Notice            // about the projects themselves
}

// checkProjects applies each Application's project to it and to what it
// renders.
func checkProjects(r *Result, opts CheckOptions) *projectCheck {
	var sets []*manifest.Set
	for _, a := range r.Apps {
		if a.Set != nil {
			sets = append(sets, a.Set)
		}
	}
	scopes := project.NewScopes(sets...)
	scopes.AddCRDs(opts.CRDs)
	pc := &projectCheck{checker: &project.Checker{Projects: r.Projects, Scopes: scopes, Now: opts.Now},
		byApp: map[string][]analysis.Finding{}, notices: map[string][]notice.Notice{}}
	if r.Projects == nil {
		return pc
	}
	unchecked := map[string][]string{} // reason -> Application keys
	for _, a := range r.Apps {
		if kust := r.notListed[a.App.Key()]; kust != "" {
			why := "its file is not among the resources of " + kust + ", so Argo CD creates it only if something renders the file itself"
			unchecked[why] = append(unchecked[why], a.App.Key())
			continue
		}
		rep := pc.checker.Check(projectApp(a, r.clusters))
		if rep.Unchecked != "" {
			unchecked[rep.Unchecked] = append(unchecked[rep.Unchecked], a.App.Key())
		}
		pc.byApp[a.App.Key()] = rep.Findings
		pc.notices[a.Cluster] = append(pc.notices[a.Cluster], rep.Notices...)
	}
	pc.general = append(pc.general, r.Projects.Notices()...)
	for _, why := range slices.Sorted(mapsKeys(unchecked)) {
		keys := unchecked[why]
		pc.general = append(pc.general, notice.Notice{Level: notice.Warning, Text: fmt.Sprintf(
			"AppProject rules not checked for %s: %s", countApps(keys), why)})
	}
	return pc
}

func countApps(keys []string) string {
	if len(keys) <= 3 {
		return "Application " + strings.Join(keys, ", ")
	}
	return fmt.Sprintf("%d Applications (%s, ...)", len(keys), strings.Join(keys[:3], ", "))
}

// projectApp describes an Application for its project's rules.
func projectApp(a *AppResult, clusters []appset.Cluster) project.App {
	app := a.App
	spec := app.Spec
	out := project.App{Key: app.Key(), Name: app.Name, Namespace: app.Namespace, Project: spec.Project, Object: app.Object,
		Source: app.Source, Destination: project.Destination{Server: spec.Destination.Server, Name: spec.Destination.Name,
			Namespace: spec.Destination.Namespace},
		Cluster: resolveCluster(spec.Destination, clusters), CreateNamespace: spec.CreatesNamespace(),
		ManagedNamespace: spec.SyncPolicy != nil && spec.SyncPolicy.ManagedNamespaceMetadata != nil, Complete: a.Set != nil && a.Status() == "rendered"}
	switch h := spec.SourceHydrator; {
	case h != nil:
		out.Repos = append(out.Repos, project.Repo{URL: h.DrySource.RepoURL, Field: "spec.sourceHydrator.drySource.repoURL"})
		if h.SyncSource.RepoURL != "" && h.SyncSource.RepoURL != h.DrySource.RepoURL {
			out.Repos = append(out.Repos, project.Repo{URL: h.SyncSource.RepoURL, Field: "spec.sourceHydrator.syncSource.repoURL"})
		}
	case len(spec.Sources) > 0:
		for i, s := range spec.Sources {
			out.Repos = append(out.Repos, project.Repo{URL: s.RepoURL, Field: fmt.Sprintf("spec.sources[%d].repoURL", i)})
		}
	case spec.Source != nil:
		out.Repos = append(out.Repos, project.Repo{URL: spec.Source.RepoURL, Field: "spec.source.repoURL"})
	}
	if app.Object != nil {
		spec, _ := app.Object.Body["spec"].(map[string]any)
		policy, _ := spec["syncPolicy"].(map[string]any)
		if auto, ok := policy["automated"].(map[string]any); ok {
			enabled, set := auto["enabled"].(bool)
			out.Automated = !set || enabled
		}
	}
	if a.Set != nil {
		out.Objects = a.Set.Objects()
	}
	return out
}

// resolveCluster is the cluster a destination names, as Argo CD's
// GetDestinationCluster finds it: by server or by name, among the clusters
// given and the in-cluster one.
func resolveCluster(d Destination, clusters []appset.Cluster) project.Cluster {
	server := strings.TrimRight(d.Server, "/")
	for _, c := range clusters {
		if (server != "" && strings.TrimRight(c.Server, "/") == server) || (server == "" && d.Name != "" && c.Name == d.Name) {
			return project.Cluster{Server: c.Server, Name: c.Name, ServerKnown: true, NameKnown: true}
		}
	}
	switch {
	case server == appset.InClusterServer || (server == "" && d.Name == appset.InClusterName):
		return project.Cluster{Server: appset.InClusterServer, Name: appset.InClusterName, ServerKnown: true, NameKnown: true}
	case server != "":
		return project.Cluster{Server: d.Server, ServerKnown: true}
	}
	return project.Cluster{Name: d.Name, NameKnown: true}
}

// projectFindings reports the findings of project rules about the
// Applications of one cluster (so that .routeguard.yaml's severities and
// suppressions apply to them).
type projectFindings struct{ findings []analysis.Finding }

func (projectFindings) Metadata() analysis.Metadata {
	return analysis.Metadata{Name: "argocd.ProjectRules", Description: "Objects and Applications an Argo CD AppProject does not permit."}
}

func (p projectFindings) Analyze(_ context.Context, c *analysis.Context) error {
	for _, f := range p.findings {
		c.Report(f)
	}
	return nil
}

// forCluster returns the analyzer of c's Applications and their notices.
func (pc *projectCheck) forCluster(c *Cluster) (analysis.Analyzer, []notice.Notice) {
	var fs []analysis.Finding
	for _, a := range c.Apps {
		fs = append(fs, pc.byApp[a.App.Key()]...)
	}
	return projectFindings{fs}, pc.notices[cmp.Or(c.Server, inClusterServer)]
}

// ProjectRules is the analyzer `cmp generate` runs with the cluster view:
// the Application's project (projectName, "" for its spec's) applied to
// it and to the objects the app renders (the analysis' own objects, not
// the view's).
func (v *AppContext) ProjectRules(projectName string, now time.Time) analysis.Analyzer {
	return cmpProjectRules{view: v, project: projectName, now: now}
}

type cmpProjectRules struct {
	view    *AppContext
	project string
	now     time.Time
}

func (cmpProjectRules) Metadata() analysis.Metadata {
	return analysis.Metadata{Name: "argocd.ProjectRules", Description: "Objects and Applications an Argo CD AppProject does not permit."}
}

func (r cmpProjectRules) Analyze(_ context.Context, c *analysis.Context) error {
	if r.view.Projects == nil {
		return nil
	}
	set := c.Objects()
	a := &AppResult{App: r.view.App, Set: set}
	app := projectApp(a, r.view.clusters)
	if r.project != "" {
		app.Project = r.project
	}
	scopes := project.NewScopes(set, c.ContextObjects())
	scopes.AddCRDs(c.Cluster().CRDs)
	rep := (&project.Checker{Projects: r.view.Projects, Scopes: scopes, Now: r.now}).Check(app)
	for _, f := range rep.Findings {
		c.Report(f)
	}
	return nil
}

// CheckProjects applies every Application's project without analyzing
// (argocd build): what it refuses, and the notices.
func CheckProjects(r *Result, now time.Time) ([]analysis.Finding, []notice.Notice) {
	pc := checkProjects(r, CheckOptions{Now: now})
	var fs []analysis.Finding
	for _, a := range r.Apps {
		fs = append(fs, pc.byApp[a.App.Key()]...)
	}
	notices := slices.Clone(pc.general)
	for _, server := range slices.Sorted(mapsKeys(pc.notices)) {
		notices = append(notices, pc.notices[server]...)
	}
	return fs, notices
}

// patchedBy returns the kustomization that patches AppProjects in file's
// directory or above, "" for none.
func patchedBy(file string, patches map[string]string) string {
	for dir := path.Dir(file); ; dir = path.Dir(dir) {
		if k, ok := patches[dir]; ok {
			return k
		}
		if dir == "." || dir == "/" {
			return ""
		}
	}
}

// unlistedBy returns the kustomization nearest above file that does not
// list it (nor a directory holding it) among its resources: the file is
// not in that kustomization's output, and Argo CD creates what it declares
// only if something renders the file itself. "" when listed or none.
func unlistedBy(file string, kustomizations map[string][]string) string {
	for dir := path.Dir(file); ; dir = path.Dir(dir) {
		if resources, ok := kustomizations[dir]; ok {
			rel := strings.TrimPrefix(file, dir+"/")
			if dir == "." {
				rel = file
			}
			for _, r := range resources {
				r = strings.TrimSuffix(strings.TrimPrefix(path.Clean(r), "./"), "/")
				if r == rel || strings.HasPrefix(rel, r+"/") {
					return ""
				}
			}
			return path.Join(dir, "kustomization.yaml")
		}
		if dir == "." || dir == "/" {
			return ""
		}
	}
}

// notListed finds the scanned Applications that no parent rendered and
// that a kustomization above them leaves out (unlistedBy).
func (b *builder) notListed(found *scanned) map[string]string {
	out := map[string]string{}
	for key, r := range b.apps {
		if r.App == nil || r.App.Origin != "" {
			continue
		}
		if kust := unlistedBy(r.App.Source.File, found.kustomizations); kust != "" {
			out[key] = kust
		}
	}
	return out
}
