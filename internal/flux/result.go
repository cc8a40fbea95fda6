package flux

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/routing"
)

// Result is what a tree build produced.
type Result struct {
	// Objects is everything the tree applies, each object once (the first
	// node to apply it keeps it), nodes in dependsOn order (a parent before
	// what it applies).
	Objects *manifest.Set
	// Nodes are the tree's Kustomizations and HelmReleases in the same
	// order; each holds its status and objects.
	Nodes []*Node
	// Findings: failed builds (RG0101, RG0102), dependsOn cycles (RG0103)
	// and missing targets (RG0104), objects applied twice (RG0105), nodes
	// not built (RG0106), sources only the cluster has (RG0107).
	Findings []analysis.Finding
	// Unrendered says where objects may be that the tree could not build
	// (skipped and failed nodes).
	Unrendered []analysis.UnrenderedScope
	// Notices are for the user: sources only the cluster has and the
	// placeholders substituted for them, files left out of the scan.
	Notices []notice.Notice
	// SkippedFiles are the YAML files of the entry directory that hold no
	// Kubernetes objects (named in verbose output).
	SkippedFiles []string
	Stats        Stats
	// Root is the node the build started from (the cluster directory's sync
	// Kustomization; the first root of a file).
	Root *Node
	// RepoRoot is the checkout built (absolute, links resolved).
	RepoRoot string
	// FluxVersion is what the tree says of the Flux it installs (read
	// with StrictAuto only).
	FluxVersion FluxVersion
	// unreadRouting lists files of this checkout holding routing objects
	// that nothing built read, when nothing the tree names is known to
	// hold routing and a node was not built (RG0100 warns of them); it
	// walks the checkout, so only NothingChecked calls it.
	unreadRouting func() []string
}

// Stats count what the build did.
type Stats struct {
	Kustomizations int            // built
	HelmReleases   int            // rendered
	ResourceSets   int            // rendered (flux-operator)
	Partial        int            // of those, built without some of their parts
	Skipped        int            // not built here
	Failed         int            // failing
	SkippedBy      map[string]int // skip reasons
	Objects        int
}

// Summary renders the stats in one line.
func (s Stats) Summary() string {
	line := fmt.Sprintf("built %d Kustomizations, rendered %d HelmReleases", s.Kustomizations, s.HelmReleases)
	if s.ResourceSets > 0 {
		line += fmt.Sprintf(", rendered %d ResourceSets", s.ResourceSets)
	}
	line += fmt.Sprintf(", skipped %d", s.Skipped)
	if s.Skipped > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(s.SkippedBy)) {
			parts = append(parts, fmt.Sprintf("%d %s", s.SkippedBy[k], k))
		}
		line += " (" + strings.Join(parts, ", ") + ")"
	}
	line += fmt.Sprintf(", failed %d", s.Failed)
	if s.Partial > 0 {
		line += fmt.Sprintf("; %d built partly", s.Partial)
	}
	return line + fmt.Sprintf("; %d objects", s.Objects)
}

// result orders the nodes, assembles the objects and the findings.
func (b *builder) result() *Result {
	r := &Result{Objects: manifest.NewSet(), SkippedFiles: b.skippedFiles, Stats: Stats{SkippedBy: map[string]int{}}, RepoRoot: b.root, FluxVersion: b.fluxVersion}
	if len(b.nodes) > 0 {
		r.Root = b.nodes[0]
	}
	order, cycles := b.order()
	r.Nodes = order
	for _, n := range order {
		for _, o := range n.Objects {
			if b.state.owner[o.Key()] == n {
				if err := r.Objects.Add(o); err == nil {
					r.Stats.Objects++
				}
			}
		}
	}
	for _, c := range cycles {
		names := make([]string, len(c))
		for i, n := range c {
			names[i] = n.String()
		}
		first := c[0]
		r.Findings = append(r.Findings, analysis.Finding{Code: analysis.CodeDependsOnCycle, Object: analysis.RefOf(first.Object), Source: first.Object.Source, Analyzer: "flux"}.Fill(strings.Join(append(names, names[0]), " -> ")))
	}
	for _, n := range order {
		switch n.Status {
		case Skipped:
			n.Unrendered = b.unrendered(n, "was not built here ("+n.SkipKind+")")
			n.RoutingFiles = b.routingFiles(n)
		case Failed:
			n.Unrendered = b.unrendered(n, "fails to build")
			n.RoutingFiles = b.routingFiles(n)
		}
		r.Unrendered = append(r.Unrendered, n.Unrendered...)
	}
	r.unreadRouting = func() []string { return b.unreadRouting(order) }
	for _, text := range b.selfNotes {
		r.Notices = append(r.Notices, notice.Notice{Level: notice.Note, Text: text})
	}
	if w := b.webhook(); w != nil {
		mutated := 0
		for _, n := range order {
			if n.mutatedBy != "" {
				mutated++
			}
		}
		r.Notices = append(r.Notices, notice.Notice{Level: notice.Note, Text: webhookNote(w, mutated)})
	}
	sources := map[string]*clusterUse{}
	for _, n := range order {
		r.Findings = append(r.Findings, n.findings...)
		r.Notices = append(r.Notices, n.notices...)
		switch n.Status {
		case Built:
			switch {
			case n.IsKustomization():
				r.Stats.Kustomizations++
			case n.IsResourceSet():
				r.Stats.ResourceSets++
			default:
				r.Stats.HelmReleases++
			}
			if len(n.Partial) > 0 {
				r.Stats.Partial++
				for _, p := range n.Partial {
					r.Notices = append(r.Notices, notice.Notice{Level: notice.Warning, Text: fmt.Sprintf("%s (%s) is built without part of it: %s", n, n.Object.Source, p)})
				}
			}
		case Skipped:
			r.Stats.Skipped++
			r.Stats.SkippedBy[n.SkipKind]++
			f := n.finding(analysis.CodeNotBuilt, "not built here: "+n.Reason)
			if k := n.MissingSource; k != nil && !b.mayHold(*k) {
				// As a dependsOn nothing applies (RG0104): a mistake unless
				// the source is made outside Git.
				f.Severity = analysis.SeverityWarning
				f.Message += "; unless it is created outside Git, helm-controller never gets the chart and the release is not installed; fix spec.chart's sourceRef (or chartRef), or add the source"
			} else if n.ChartNotFetched() && len(n.RoutingFiles) > 0 {
				// Its chart was not fetched and it holds routing (routing
				// values, templates): routing that is not checked.
				f.Severity = analysis.SeverityWarning
				f.Message += fmt.Sprintf("; it holds routing (%s) that is not checked", strings.Join(firstOf(n.RoutingFiles, 5), ", "))
			}
			r.Findings = append(r.Findings, f)
		case Failed:
			r.Stats.Failed++
			code := analysis.CodeFluxBuildFailed
			switch {
			case n.IsResourceSet():
				code = analysis.CodeResourceSetFailed
			case !n.IsKustomization():
				code = analysis.CodeHelmReleaseFailed
			}
			r.Findings = append(r.Findings, n.finding(code, n.Reason))
		}
		if nt, ok := otherClusterNotice(n); ok {
			r.Notices = append(r.Notices, nt)
		}
		for _, d := range n.duplicates {
			if d.otherCluster {
				continue
			}
			f := analysis.Finding{Code: analysis.CodeAppliedTwice, Object: analysis.RefOf(d.object), Source: d.object.Source, Analyzer: "flux"}.Fill(d.object.String(), "differently", d.first.describe(), n.describe(), "the last to reconcile wins, so it flips between the two")
			if first := d.first.objectByKey(d.object.Key()); first != nil && sameButMetadata(first.Body, d.object.Body) {
				// The same object from a shared component (an app-template
				// OCIRepository per app Kustomization, labelled by each
				// app's commonMetadata): nothing competes; only the one
				// that applied it last prunes it.
				f.Severity = analysis.SeverityInfo
				f = f.Fill(d.object.String(), "identically but for labels or annotations", d.first.describe(), n.describe(), "a shared component: nothing competes, but each prunes it when it stops applying it")
			}
			r.Findings = append(r.Findings, f)
		}
		for _, dep := range n.dependsOn {
			if _, ok := b.byKey[dep]; ok || b.mayHold(dep) || !isNodeKind(dep) {
				continue
			}
			r.Findings = append(r.Findings, n.finding(analysis.CodeDependsOnMissing,
				fmt.Sprintf("spec.dependsOn names %s, which nothing in the tree applies; unless it is created outside Git, Flux waits for it forever; fix the name or namespace", dep)))
		}
		for _, c := range n.clusterSources {
			k := c.Kind + " " + c.Key.String()
			u := sources[k]
			if u == nil {
				u = &clusterUse{src: c, vars: map[string]bool{}}
				sources[k] = u
			}
			u.users++
			for _, v := range c.Placeholders {
				u.vars[v] = true
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(sources)) {
		u := sources[k]
		if u.src.Why == whyBuiltAlone {
			if len(u.vars) > 0 {
				r.Notices = append(r.Notices, notice.Notice{Level: notice.Warning, Text: fmt.Sprintf(
					"built alone, %d Kustomizations use variables that a parent Kustomization would supply (by a patch adding substituteFrom, or postBuild.substitute): %s; routeguard substituted placeholders %s<name> for them instead of failing; give their values with --var NAME=VALUE or --vars-file, or build the tree from its cluster directory (--all)",
					u.users, strings.Join(slices.Sorted(maps.Keys(u.vars)), ", "), PlaceholderPrefix)})
			}
			continue
		}
		what := "substitute from it"
		if u.src.values {
			what = "take values from it"
		}
		text := fmt.Sprintf("%s is %s: %d Flux objects %s", k, u.src.Why, u.users, what)
		if len(u.vars) > 0 {
			text += fmt.Sprintf("; placeholders %s<name> stand for %s (give values with --var NAME=VALUE or --vars-file)", PlaceholderPrefix, strings.Join(slices.Sorted(maps.Keys(u.vars)), ", "))
		} else if u.src.values {
			text += "; rendered without those values"
		}
		r.Notices = append(r.Notices, notice.Notice{Level: notice.Note, Text: text})
	}
	sort.SliceStable(r.Findings, func(i, j int) bool { return r.Findings[i].Source.String() < r.Findings[j].Source.String() })
	return r
}

type clusterUse struct {
	src   *clusterSource
	users int
	vars  map[string]bool
}

type duplicate struct {
	object *manifest.Object
	first  *Node
	// otherCluster: first applies it into another cluster than the node
	// does (destination): not a conflict, but only first's copy is in
	// the tree's objects.
	otherCluster bool
}

func newDuplicate(o *manifest.Object, first, n *Node) duplicate {
	return duplicate{object: o, first: first, otherCluster: destination(first) != destination(n)}
}

// finding is a finding about the node's object.
// sameButMetadata says whether two bodies of one object are equal but for
// metadata.labels and metadata.annotations (the commonMetadata each
// Kustomization adds, its owner labels): what the object does is the same
// whichever applies it last.
func sameButMetadata(a, b map[string]any) bool {
	strip := func(body map[string]any) map[string]any {
		out := make(map[string]any, len(body))
		for k, v := range body {
			out[k] = v
		}
		if md, ok := body["metadata"].(map[string]any); ok {
			m := make(map[string]any, len(md))
			for k, v := range md {
				if k != "labels" && k != "annotations" {
					m[k] = v
				}
			}
			out["metadata"] = m
		}
		return out
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

func (n *Node) finding(code, msg string) analysis.Finding {
	return analysis.Finding{Code: code, Object: analysis.RefOf(n.Object), Source: n.Object.Source, Analyzer: "flux", Message: msg}
}

// unrendered is where a node that was not built would put its objects
// (UnbuiltScopes).
func (b *builder) unrendered(n *Node, why string) []analysis.UnrenderedScope {
	return UnbuiltScopes(n.Object, why)
}

// UnbuiltScopes is where the Flux Kustomization or HelmRelease o, not
// built, would put its objects: a HelmRelease's release namespace (and
// cluster-scoped kinds), a Kustomization's targetNamespace (and
// cluster-scoped kinds), else any namespace. why completes the reason
// ("Kustomization flux-system/apps <why>"). Any other object has none.
func UnbuiltScopes(o *manifest.Object, why string) []analysis.UnrenderedScope {
	var kustomization bool
	switch o.GroupKind() {
	case manifest.GroupKind{Group: KustomizeGroup, Kind: "Kustomization"}:
		kustomization = true
	case manifest.GroupKind{Group: HelmGroup, Kind: "HelmRelease"}:
	case manifest.GroupKind{Group: ControlPlaneGroup, Kind: "ResourceSet"}:
		return resourceSetScopes(o, why)
	default:
		return nil
	}
	reason := fmt.Sprintf("%s %s", o, why)
	tns := field.String(o.Body, "spec", "targetNamespace")
	scope := func(ns string) analysis.UnrenderedScope {
		u := analysis.UnrenderedScope{Namespace: ns, Reason: reason, Makers: []string{o.Name}}
		if kustomization {
			if p := field.String(o.Body, "spec", "path"); p != "" {
				u.Paths = []string{path.Clean(strings.TrimPrefix(filepath.ToSlash(p), "/"))}
			}
			return u
		}
		for _, m := range []string{field.String(o.Body, "spec", "releaseName"), path.Base(field.String(o.Body, "spec", "chart", "spec", "chart")), field.String(o.Body, "spec", "chartRef", "name")} {
			if m != "" && m != "." && m != "/" {
				u.Makers = append(u.Makers, m)
			}
		}
		// Routes to a release's Services sit beside its HelmRelease (an
		// app directory holding both): its directory names it best.
		if f := o.Source.File; f != "" && !strings.Contains(f, ": ") {
			u.Paths = []string{path.Dir(f)}
		}
		return u
	}
	if !kustomization {
		return []analysis.UnrenderedScope{scope(cmp.Or(tns, o.Namespace)), scope("")}
	}
	if tns != "" {
		return []analysis.UnrenderedScope{scope(tns), scope("")}
	}
	return []analysis.UnrenderedScope{scope("*")}
}

// isNodeKind reports whether k names a Kustomization, HelmRelease or
// ResourceSet (what a dependsOn on nothing the tree applies is judged for;
// a ResourceSet may wait for any kind, which the tree need not apply).
func isNodeKind(k manifest.Key) bool {
	return isFluxNode(&manifest.Object{APIVersion: k.Group + "/v1", Kind: k.Kind})
}

// mayHold reports whether a node that was not built may apply k.
func (b *builder) mayHold(k manifest.Key) bool {
	for _, n := range b.nodes {
		for _, u := range n.Unrendered {
			if u.Covers(manifest.GroupKind{Group: k.Group, Kind: k.Kind}, k.Namespace) {
				return true
			}
		}
	}
	return false
}

// Select returns the nodes named name (in namespace ns; "" for any) and
// everything they apply, directly or through their children, and the
// objects of those nodes; rest holds every other object of the tree.
func (r *Result) Select(name, ns string) (nodes []*Node, in, rest *manifest.Set) {
	chosen := map[*Node]bool{}
	for _, n := range r.Nodes {
		if n.Object.Name == name && (ns == "" || n.Object.Namespace == ns) {
			chosen[n] = true
		}
	}
	if len(chosen) == 0 {
		return nil, nil, nil
	}
	within := func(n *Node) bool {
		for m := n; m != nil; m = m.Parent {
			if chosen[m] {
				return true
			}
		}
		return false
	}
	owner := map[manifest.Key]*Node{}
	for _, n := range r.Nodes {
		for _, o := range n.Objects {
			if _, ok := owner[o.Key()]; !ok {
				owner[o.Key()] = n
			}
		}
		if within(n) {
			nodes = append(nodes, n)
		}
	}
	in, rest = manifest.NewSet(), manifest.NewSet()
	for _, o := range r.Objects.Objects() {
		if n := owner[o.Key()]; n != nil && within(n) {
			_ = in.Add(o)
		} else {
			_ = rest.Add(o)
		}
	}
	return nodes, in, rest
}

// SubstituteVariable returns the value of spec.postBuild.substitute[name]
// of a Kustomization.
func SubstituteVariable(ks *manifest.Object, name string) (string, bool) {
	v, ok := field.Map(ks.Body, "spec", "postBuild", "substitute")[name].(string)
	return v, ok
}

// FindingsOf returns the build findings about the given nodes and the
// objects they apply (for --name: the rest of the tree only resolves
// references, its own failures are not the selected object's).
func (r *Result) FindingsOf(nodes []*Node) []analysis.Finding {
	refs := map[analysis.ObjectRef]bool{}
	for _, n := range nodes {
		refs[analysis.RefOf(n.Object)] = true
		for _, o := range n.Objects {
			refs[analysis.RefOf(o)] = true
		}
	}
	var out []analysis.Finding
	for _, f := range r.Findings {
		if refs[f.Object] {
			out = append(out, f)
		}
	}
	return out
}

// NothingChecked is RG0100 when objects (what is analyzed) hold no routing
// object: an error when the tree's unbuilt nodes hold routing (a silent
// pass otherwise), an info when the inputs hold no routing at all (a tree,
// or a Kustomization built alone, that routes nothing: fine, and said).
func (r *Result) NothingChecked(objects *manifest.Set, nodes []*Node) []analysis.Finding {
	if r.Root == nil {
		return nil
	}
	notBuilt := 0
	for _, n := range nodes {
		if n.Status == Skipped || n.Status == Failed {
			notBuilt++
		}
	}
	f, ok := analysis.NothingChecked(objects, analysis.RefOf(r.Root.Object), r.Root.Object.Source, notBuilt)
	if !ok {
		return nil
	}
	detail, _ := analysis.NothingCheckedDetail(objects, notBuilt)
	var holding []string
	for _, n := range nodes {
		if len(n.RoutingFiles) > 0 {
			holding = append(holding, fmt.Sprintf("%s (%s)", n, strings.Join(firstOf(n.RoutingFiles, 3), ", ")))
		}
	}
	if len(holding) == 0 && routing.UncheckedIn(objects) != "" {
		// It routes, through kinds routeguard does not check (Traefik's
		// IngressRoute, OpenShift's Route): not checked, and said so.
		f.Severity = analysis.SeverityWarning
		return []analysis.Finding{f}
	}
	var unread []string
	if len(holding) == 0 && r.unreadRouting != nil {
		unread = r.unreadRouting()
	}
	if len(unread) > 0 {
		// Nothing the tree names holds routing as far as this checkout
		// shows, but the checkout does, where nothing built reads: a
		// source not built here (an OCI artifact pushed from these
		// directories) may carry it. Not an error: routeguard cannot tell.
		f.Severity = analysis.SeverityWarning
		f = f.Fill(analysis.NothingCheckedArgs(detail, fmt.Sprintf("while %d files of this repository hold routing objects that nothing built reads (%s): a source not built here may carry them (--source maps it)",
			len(unread), strings.Join(firstOf(unread, 3), ", ")))...)
		return []analysis.Finding{f}
	}
	if len(holding) == 0 {
		f.Severity = analysis.SeverityInfo
		f = f.Fill(analysis.NothingCheckedArgs(detail, "and what it was built from holds none either (nor do the Kustomizations and HelmReleases not built, as far as the repository shows): it routes nothing")...)
		return []analysis.Finding{f}
	}
	f = f.Fill(analysis.NothingCheckedArgs(detail, fmt.Sprintf("while %d of the Kustomizations and HelmReleases that were not built hold routing: %s; none of it was checked", len(holding), strings.Join(firstOf(holding, 5), "; ")))...)
	return []analysis.Finding{f}
}

// firstOf keeps the first n items, saying how many more there are.
func firstOf(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(slices.Clone(items[:n]), fmt.Sprintf("and %d more", len(items)-n))
}

// objectByKey finds one of the node's objects by key.
func (n *Node) objectByKey(k manifest.Key) *manifest.Object {
	for _, o := range n.Objects {
		if o.Key() == k {
			return o
		}
	}
	return nil
}
