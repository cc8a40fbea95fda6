package argocd

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/coverage"
	"github.com/routeguard/routeguard/internal/argocd/appset"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
)

const inClusterServer = appset.InClusterServer

// Cluster is what the Applications of one destination cluster render,
// merged as the cluster would hold it.
type Cluster struct {
	Server string
	Apps   []*AppResult
	// Set holds every object, namespaced objects without a namespace in
	// their Application's destination namespace (as Argo CD applies them).
	Set *manifest.Set
	// Owner maps each object to the key of the Application rendering it.
	Owner      map[manifest.Key]string
	Unrendered []analysis.UnrenderedScope
	Notices    []notice.Notice
}

// Name shows the cluster for messages.
func (c *Cluster) Name() string {
	if c.Server == inClusterServer {
		return appset.InClusterName
	}
	return strings.TrimPrefix(c.Server, "name:")
}

// Clusters groups the Applications by destination cluster, in order of
// server. An object rendered by two Applications is kept once (the first
// by name) with a warning: Argo CD reports a shared resource.
func (r *Result) Clusters() []*Cluster {
	by := map[string]*Cluster{}
	get := func(server string) *Cluster {
		c, ok := by[server]
		if !ok {
			c = &Cluster{Server: server, Set: manifest.NewSet(), Owner: map[manifest.Key]string{}}
			by[server] = c
		}
		return c
	}
	for _, a := range r.Apps {
		if a.Cluster == "" {
			a.Cluster = inClusterServer
		}
		c := get(a.Cluster)
		c.Apps = append(c.Apps, a)
		c.Unrendered = append(c.Unrendered, a.Unrendered...)
	}
	for _, s := range r.AppSets {
		for _, server := range s.Clusters {
			if server == "" {
				for _, c := range by {
					c.Unrendered = append(c.Unrendered, s.Unrendered...)
				}
				continue
			}
			get(server).Unrendered = append(get(server).Unrendered, s.Unrendered...)
		}
	}
	if len(by) == 0 {
		get(inClusterServer) // nothing rendered is still a cluster with nothing checked
	}
	var out []*Cluster
	for _, server := range slices.Sorted(mapsKeys(by)) {
		c := by[server]
		c.merge()
		out = append(out, c)
	}
	return out
}

// merge fills the cluster's set from its Applications.
func (c *Cluster) merge() {
	var sets []*manifest.Set
	for _, a := range c.Apps {
		if a.Set != nil {
			sets = append(sets, a.Set)
		}
	}
	scoped := analysis.ClusterScoped(sets...)
	shared := map[manifest.Key][]string{} // the other Applications rendering an object
	var sharedOrder []manifest.Key
	for _, a := range c.Apps {
		if a.Set == nil {
			continue
		}
		ns := cmp.Or(a.App.Spec.Destination.Namespace, "default")
		for _, o := range a.Set.Objects() {
			if o.Namespace == "" && !scoped[o.GroupKind()] {
				o = withNamespace(o, ns)
			}
			k := o.Key()
			if _, dup := c.Owner[k]; dup {
				if shared[k] == nil {
					sharedOrder = append(sharedOrder, k)
				}
				shared[k] = append(shared[k], a.App.Key())
				continue
			}
			if err := c.Set.Add(o); err != nil {
				continue // generateName objects are never duplicates; nothing else can fail here
			}
			c.Owner[k] = a.App.Key()
		}
	}
	// One notice per object, however many Applications render it.
	for _, k := range sharedOrder {
		others := shared[k]
		owner := c.Owner[k]
		who := "Applications " + owner + " and " + others[0]
		if len(others) > 1 {
			who = fmt.Sprintf("%d Applications: %s, %s", len(others)+1, owner, strings.Join(firstN(others, 4), ", "))
		}
		c.Notices = append(c.Notices, notice.Notice{Level: notice.Warning, Text: fmt.Sprintf(
			"%s is rendered by %s (Argo CD reports a shared resource and they overwrite each other); analyzing %s's", k, who, owner)})
	}
	c.createNamespaces()
}

// createNamespaces adds the Namespaces Argo CD creates for Applications
// with CreateNamespace=true, labelled and annotated with their
// managedNamespaceMetadata, where no Application renders the Namespace.
func (c *Cluster) createNamespaces() {
	for _, a := range c.Apps {
		spec := a.App.Spec
		if a.Set == nil || !spec.CreatesNamespace() {
			continue
		}
		k := manifest.Key{Kind: "Namespace", Name: spec.Destination.Namespace}
		if _, ok := c.Set.Get(k); ok {
			continue
		}
		md := map[string]any{"name": spec.Destination.Namespace}
		if m := spec.SyncPolicy.ManagedNamespaceMetadata; m != nil {
			if len(m.Labels) > 0 {
				md["labels"] = stringMap(m.Labels)
			}
			if len(m.Annotations) > 0 {
				md["annotations"] = stringMap(m.Annotations)
			}
		}
		o, err := manifest.FromBody(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": md}, a.App.Source)
		if err != nil || c.Set.Add(o) != nil {
			continue
		}
		c.Owner[k] = a.App.Key()
	}
}

func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Check is what the analysis of one destination cluster takes: the
// cluster (its objects, their owners, its unrendered scopes; its notices
// include what the AppProjects say) and its analyzers: the AppProjects'
// rules (RG02xx) and the coverage of its Applications (RG0007, RG0009) and
// of the cluster itself (RG0100).
type Check struct {
	Cluster   *Cluster
	Analyzers []analysis.Analyzer
}

// CheckOptions are what the projects' rules are checked with.
type CheckOptions struct {
	// CRDs are the target cluster's CustomResourceDefinitions (which kinds
	// are namespaced).
	CRDs []*manifest.Object
	// Now is when the projects' sync windows are evaluated.
	Now time.Time
}

// Checks are the analyses of the build, one per destination cluster in
// order of server. The cluster that holds the ApplicationSets (in-cluster,
// if present) also reports those that failed, and what the AppProjects
// themselves get wrong.
func (r *Result) Checks(opts CheckOptions) []Check {
	clusters := r.Clusters()
	home := 0
	for i, c := range clusters {
		if c.Server == inClusterServer {
			home = i
		}
	}
	projects := checkProjects(r, opts)
	out := make([]Check, 0, len(clusters))
	for i, c := range clusters {
		rules, notices := projects.forCluster(c)
		c.Notices = append(c.Notices, notices...)
		if i == home {
			c.Notices = append(c.Notices, projects.general...)
		}
		holding, notRendered := unbuiltRouting(c)
		out = append(out, Check{Cluster: c, Analyzers: []analysis.Analyzer{rules, coverage.Apps{Apps: coverageApps(c, r, i == home)},
			coverage.NothingChecked{Object: analysis.ObjectRef{Kind: "Cluster", Name: c.Name()},
				What:    fmt.Sprintf("cluster %s (%d Applications, %d objects)", c.Name(), len(c.Apps), c.Set.Len()),
				Holding: holding, NotRendered: notRendered}}})
	}
	return out
}

// Attribute names the Application of each finding that names none: the
// one that renders its object.
func (c *Cluster) Attribute(fs []analysis.Finding) {
	for i, f := range fs {
		if f.App != "" {
			continue
		}
		k := manifest.Key{Group: f.Object.Group(), Kind: f.Object.Kind, Namespace: f.Object.Namespace, Name: f.Object.Name}
		fs[i].App = c.Owner[k]
	}
}

// unbuiltRouting lists the cluster's Applications that did not render
// whole and hold routing (with what they hold), and counts those that did
// not render whole.
func unbuiltRouting(c *Cluster) (holding []string, notRendered int) {
	for _, a := range c.Apps {
		if a.Status() == "rendered" {
			continue
		}
		notRendered++
		if len(a.RoutingFiles) > 0 {
			files := a.RoutingFiles
			if len(files) > 3 {
				files = append(append([]string(nil), files[:3]...), fmt.Sprintf("and %d more", len(a.RoutingFiles)-3))
			}
			holding = append(holding, fmt.Sprintf("Application %s (%s)", a.App.Key(), strings.Join(files, ", ")))
		}
	}
	return holding, notRendered
}

// coverageApps describes the cluster's Applications (and the
// ApplicationSets that failed) for the coverage analyzers.
func coverageApps(c *Cluster, r *Result, withAppSets bool) []coverage.App {
	var out []coverage.App
	for _, a := range c.Apps {
		ca := coverage.App{Object: appRef(a.App), Source: a.App.Source, Name: a.App.Key(), What: a.describe()}
		if a.Set != nil {
			ca.Objects = a.Set.Len()
		}
		if a.Err != nil {
			ca.Err = a.Err.Error()
		}
		// RG0007 only when every source rendered and was empty: a source
		// skipped here (a chart out of reach offline) may hold everything.
		ca.Skipped = a.Status() != "rendered"
		out = append(out, ca)
	}
	if withAppSets {
		for _, s := range r.AppSets {
			if s.Err == nil {
				continue
			}
			out = append(out, coverage.App{Object: analysis.ObjectRef{APIVersion: s.Object.APIVersion, Kind: kindApplicationSet,
				Namespace: s.Object.Namespace, Name: s.Object.Name}, Source: s.Object.Source, Name: s.Key, Err: s.Err.Error()})
		}
	}
	return out
}

func appRef(a *Application) analysis.ObjectRef {
	return analysis.ObjectRef{APIVersion: "argoproj.io/v1alpha1", Kind: kindApplication, Namespace: a.Namespace, Name: a.Name}
}

// describe says what an Application renders, for messages.
func (a *AppResult) describe() string {
	var parts []string
	for _, s := range a.Sources {
		if s.Tool == "" {
			continue
		}
		parts = append(parts, strings.ToLower(s.Tool)+" "+cmp.Or(s.Where, "."))
	}
	if len(parts) == 0 {
		return "no source rendered"
	}
	return strings.Join(parts, ", ")
}

// Status sums up an Application's result: "failed" (it does not render),
// "skipped" (no source could be rendered here: other repositories, charts
// out of reach), "partial" (some sources skipped) or "rendered".
func (a *AppResult) Status() string {
	if a.Err != nil || a.Set == nil {
		return "failed"
	}
	renderedAny, skippedAny := false, false
	for _, s := range a.Sources {
		switch {
		case s.Skipped != "":
			skippedAny = true
		case s.Tool != "":
			renderedAny = true
			skippedAny = skippedAny || len(s.MissingCharts) > 0 || len(s.Remote) > 0 || s.MissingDependencies != nil
		}
	}
	switch {
	case skippedAny && !renderedAny:
		return "skipped"
	case skippedAny:
		return "partial"
	}
	return "rendered"
}
