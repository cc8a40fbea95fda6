package project

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
)

// App is an Application as its project's rules see it.
type App struct {
	Key       string // "namespace/name" as findings name it
	Name      string
	Namespace string
	Project   string
	// Object is the Application's manifest (for file:line; may be nil).
	Object *manifest.Object
	// Source is where the Application is declared.
	Source manifest.Source
	// Repos are the repoURLs Argo CD checks against sourceRepos, each with
	// its field path in the Application ("spec.sources[1].repoURL").
	Repos []Repo
	// Destination is spec.destination as written; Cluster is the cluster
	// it resolves to.
	Destination Destination
	Cluster     Cluster
	Automated   bool
	// CreateNamespace is syncOptions CreateNamespace=true;
	// ManagedNamespace that managedNamespaceMetadata is set too.
	CreateNamespace  bool
	ManagedNamespace bool
	// Objects is what it renders; Complete is true when every source
	// rendered (none skipped), so that Objects is all it applies.
	Objects  []*manifest.Object
	Complete bool
}

// Repo is one repoURL of an Application.
type Repo struct {
	URL   string
	Field string
}

// Checker applies the projects of one Argo CD instance.
type Checker struct {
	Projects *Index
	Scopes   *Scopes
	// Now is when sync windows are evaluated.
	Now time.Time
}

// Report is what checking one Application found.
type Report struct {
	Findings []analysis.Finding
	Notices  []notice.Notice
	// Unchecked says why the project's rules could not be applied at all
	// ("" when they were).
	Unchecked string
}

// Check applies app's project as the application controller does: the
// Application's namespace (sourceNamespaces), its sources and destination
// (an Application refused there is never compared or synced, so its
// objects are not checked), then each object it renders and the
// namespace CreateNamespace=true makes, then the sync windows.
func (c *Checker) Check(app App) Report {
	var r Report
	p := c.Projects.Lookup(app.Project)
	if p == nil {
		r.Unchecked = fmt.Sprintf("its AppProject %s is neither in the repository nor given with --project-file", cmp.Or(app.Project, DefaultName))
		return r
	}
	if what := templated(app); what != "" {
		r.Unchecked = "its spec holds unexpanded placeholders (" + what + "): it is a template, not what Argo CD gets"
		return r
	}
	if c.checkApp(&r, app, p) {
		c.checkObjects(&r, app, p)
		c.checkWindows(&r, app, p)
	}
	return r
}

// checkApp applies the rules about the Application itself; false when it
// is refused.
func (c *Checker) checkApp(r *Report, app App, p *Project) bool {
	ref := analysis.ObjectRef{APIVersion: "argoproj.io/v1alpha1", Kind: "Application", Namespace: app.Namespace, Name: app.Name}
	at := func(path string) manifest.Source {
		if app.Object == nil {
			return app.Source
		}
		return app.Object.FieldSource(path)
	}
	if v := p.AppNamespacePermitted(app.Namespace, c.Projects.Namespace); !v.Permitted {
		r.Findings = append(r.Findings, analysis.Finding{Code: analysis.CodeProjectAppNamespace, Object: ref, Source: at("metadata.namespace"), App: app.Key}.Fill(fmt.Sprintf("application '%s' in namespace '%s' is not permitted to use project '%s'", app.Name, app.Namespace, p.Name),
			fmt.Sprintf("%s; Argo CD's namespace is taken as %s (--app-namespace)", v.Why, c.Projects.Namespace), p.Name, p.Where(v.Rule)))
		return false
	}
	ok := true
	for _, repo := range app.Repos {
		if repo.URL == "" {
			continue // Argo CD refuses it before the project: a source needs a repoURL
		}
		if v := p.SourcePermitted(repo.URL); !v.Permitted {
			ok = false
			r.Findings = append(r.Findings, analysis.Finding{Code: analysis.CodeProjectSourceRepo, Object: ref, Source: at(repo.Field), App: app.Key}.Fill(fmt.Sprintf("application repo %s is not permitted in project '%s'", repo.URL, p.Name), v.Why, p.Name, p.Where(v.Rule)))
		}
	}
	v, undecided := c.destination(p, app.Cluster, app.Destination.Namespace)
	switch {
	case undecided != "":
		r.Notices = append(r.Notices, notice.Notice{Level: notice.Warning, Text: fmt.Sprintf(
			"Application %s: whether AppProject %s permits its destination cannot be checked: %s", app.Key, p.Name, undecided)})
	case !v.Permitted:
		ok = false
		server := app.Cluster.Server
		if app.Destination.Name != "" {
			server = app.Destination.Name
		}
		r.Findings = append(r.Findings, analysis.Finding{Code: analysis.CodeProjectDestination, Object: ref, Source: at("spec.destination"), App: app.Key}.Fill(fmt.Sprintf("application destination server '%s' and namespace '%s' do not match any of the allowed destinations in project '%s'",
			server, app.Destination.Namespace, p.Name), v.Why, p.Name, p.Where(v.Rule)))
	}
	return ok
}

// destination decides a destination, or says why it cannot.
func (c *Checker) destination(p *Project, cl Cluster, namespace string) (Verdict, string) {
	if !cl.NameKnown {
		cl.Name = ""
	}
	if !cl.ServerKnown {
		cl.Server = ""
	}
	// Without the name (server), no entry matches by it and every "!" name
	// (server) entry denies: a permit stands whatever it is, a refusal
	// only if no entry names clusters by it.
	v := p.DestinationPermitted(cl, namespace)
	if !v.Permitted && !cl.NameKnown && slices.ContainsFunc(p.Spec.Destinations, func(d Destination) bool { return d.Name != "" }) {
		return v, fmt.Sprintf("its entries name clusters, and the name of cluster %s is not known (give it with --cluster NAME=%s)", cl.Server, cl.Server)
	}
	if !v.Permitted && !cl.ServerKnown && slices.ContainsFunc(p.Spec.Destinations, func(d Destination) bool { return d.Server != "" }) {
		return v, fmt.Sprintf("its entries name clusters by server, and the server of cluster %s is not known (give it with --cluster %s=SERVER)", cl.Name, cl.Name)
	}
	if v.Permitted && p.Spec.PermitOnlyProjectScopedClusters {
		return v, "it sets permitOnlyProjectScopedClusters, and which clusters are scoped to the project is known only to Argo CD"
	}
	return v, ""
}

// checkObjects applies the resource lists and destinations to each
// object, as the sync's permission validator does: a namespaced object
// without a namespace goes to the destination namespace.
func (c *Checker) checkObjects(r *Report, app App, p *Project) {
	var unknown []string
	undecided := map[string]bool{app.Destination.Namespace: true} // said once per namespace (the Application's: by checkApp)
	for _, o := range app.Objects {
		gk := o.GroupKind()
		ns := cmp.Or(o.Namespace, app.Destination.Namespace)
		namespaced, known := c.Scopes.Namespaced(gk)
		if !known {
			vn, vc := p.GroupKindPermitted(gk.Group, gk.Kind, o.Name, true), p.GroupKindPermitted(gk.Group, gk.Kind, o.Name, false)
			if !vn.Permitted && !vc.Permitted {
				r.Findings = append(r.Findings, kindRefused(app, p, o, vn, true, ", whether the kind is namespaced or cluster-scoped"))
				continue
			}
			if vn.Permitted != vc.Permitted {
				unknown = append(unknown, gk.Group+"/"+gk.Kind)
				continue
			}
			if v, why := c.destination(p, app.Cluster, ns); why == "" && !v.Permitted {
				unknown = append(unknown, gk.Group+"/"+gk.Kind)
			}
			continue
		}
		if v := p.GroupKindPermitted(gk.Group, gk.Kind, o.Name, namespaced); !v.Permitted {
			r.Findings = append(r.Findings, kindRefused(app, p, o, v, namespaced, ""))
			continue
		}
		if !namespaced {
			continue
		}
		v, why := c.destination(p, app.Cluster, ns)
		switch {
		case why != "" && undecided[ns]:
		case why != "":
			undecided[ns] = true
			r.Notices = append(r.Notices, notice.Notice{Level: notice.Warning, Text: fmt.Sprintf(
				"Application %s: whether AppProject %s permits namespace %s cannot be checked: %s", app.Key, p.Name, ns, why)})
		case !v.Permitted:
			r.Findings = append(r.Findings, analysis.Finding{Code: analysis.CodeProjectNamespace, Object: objectRef(o, ns, namespaced), Source: o.Source, App: app.Key}.Fill(fmt.Sprintf("namespace %v is not permitted in project '%s'", ns, p.Name), v.Why, clusterText(app.Cluster), p.Name, p.Where(v.Rule)))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		unknown = slices.Compact(unknown)
		r.Notices = append(r.Notices, notice.Notice{Level: notice.Warning, Text: fmt.Sprintf(
			"Application %s: AppProject %s permits %s only if namespaced (or only if cluster-scoped), and no CustomResourceDefinition in the repository says which; not checked",
			app.Key, p.Name, strings.Join(unknown, ", "))})
	}
	c.checkCreatedNamespace(r, app, p)
}

// checkCreatedNamespace applies the cluster resource lists to the
// Namespace that CreateNamespace=true makes: with
// managedNamespaceMetadata Argo CD applies it on every sync, without only
// while it does not exist.
func (c *Checker) checkCreatedNamespace(r *Report, app App, p *Project) {
	ns := app.Destination.Namespace
	if !app.CreateNamespace || ns == "" || !app.Complete {
		return // a source not rendered may hold the Namespace itself
	}
	for _, o := range app.Objects {
		if o.Group() == "" && o.Kind == "Namespace" && o.Name == ns {
			return // rendered: checked as an object, and Argo CD creates none
		}
	}
	v := p.GroupKindPermitted("", "Namespace", ns, false)
	if v.Permitted {
		return
	}
	src := app.Source
	if app.Object != nil {
		src = app.Object.FieldSource("spec.syncPolicy.syncOptions")
	}
	ref := analysis.ObjectRef{APIVersion: "v1", Kind: "Namespace", Name: ns}
	refusal := fmt.Sprintf("resource :Namespace is not permitted in project %s", p.Name)
	if app.ManagedNamespace {
		r.Findings = append(r.Findings, analysis.Finding{Code: analysis.CodeProjectResource, Object: ref, Source: src, App: app.Key}.Fill(refusal,
			fmt.Sprintf("CreateNamespace=true with managedNamespaceMetadata applies Namespace %s on every sync, and %s", ns, v.Why), p.Name, p.Where(v.Rule)))
		return
	}
	r.Findings = append(r.Findings, analysis.Finding{Code: analysis.CodeProjectNamespaceCreate, Object: ref, Source: src, App: app.Key}.Fill(ns, refusal, v.Why, p.Name, p.Where(v.Rule)))
}

func kindRefused(app App, p *Project, o *manifest.Object, v Verdict, namespaced bool, scope string) analysis.Finding {
	gk := o.GroupKind()
	return analysis.Finding{Code: analysis.CodeProjectResource, Object: objectRef(o, cmp.Or(o.Namespace, app.Destination.Namespace), namespaced), Source: o.Source, App: app.Key}.Fill(fmt.Sprintf("resource %s:%s is not permitted in project %s", gk.Group, gk.Kind, p.Name), v.Why+scope, p.Name, p.Where(v.Rule))
}

func objectRef(o *manifest.Object, ns string, namespaced bool) analysis.ObjectRef {
	ref := analysis.RefOf(o)
	if namespaced {
		ref.Namespace = ns
	}
	return ref
}

func clusterText(c Cluster) string {
	switch {
	case c.NameKnown && c.ServerKnown:
		return c.Name + " (" + c.Server + ")"
	case c.NameKnown:
		return c.Name
	}
	return c.Server
}

// checkWindows notes sync windows that block an automated sync now.
func (c *Checker) checkWindows(r *Report, app App, p *Project) {
	if !app.Automated || len(p.Spec.SyncWindows) == 0 {
		return
	}
	v := p.AutomatedSync(WindowApp{Name: app.Name, Server: app.Destination.Server, ClusterName: app.Destination.Name,
		Namespace: app.Destination.Namespace}, c.Now)
	if !v.Blocked {
		return
	}
	var where []string
	for _, i := range v.Windows {
		w := p.Spec.SyncWindows[i]
		where = append(where, fmt.Sprintf("%s %q for %s (%s)", w.Kind, w.Schedule, w.Duration, p.Where(fmt.Sprintf("spec.syncWindows[%d]", i))))
	}
	r.Notices = append(r.Notices, notice.Notice{Level: notice.Note, Text: fmt.Sprintf(
		"Application %s: the sync windows of AppProject %s block its automated sync at %s: %s: %s; Argo CD syncs it once a window lets it",
		app.Key, p.Name, c.Now.UTC().Format(time.RFC3339), v.Why, strings.Join(where, ", "))})
}

// templated names a field of app that still holds a template placeholder
// (${VAR}, {{ .x }}): a file a script or a generator fills in.
func templated(app App) string {
	is := func(s string) bool { return strings.Contains(s, "${") || strings.Contains(s, "{{") }
	for _, r := range app.Repos {
		if is(r.URL) {
			return r.Field + " " + r.URL
		}
	}
	for field, v := range map[string]string{"spec.destination.server": app.Destination.Server, "spec.destination.name": app.Destination.Name,
		"spec.destination.namespace": app.Destination.Namespace, "spec.project": app.Project} {
		if is(v) {
			return field + " " + v
		}
	}
	return ""
}
