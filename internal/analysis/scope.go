package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/manifest"
)

// Scope says where Context.Resolve found (or did not find) an object.
type Scope int

const (
	// ScopeRendered: the object is in the rendered set.
	ScopeRendered Scope = iota
	// ScopeContext: the object is among the context paths' objects.
	ScopeContext
	// ScopeMissing: the object is nowhere, and the app (or a context path)
	// renders objects of its kind in its namespace, or the Namespace
	// object itself, so the reference is dangling.
	ScopeMissing
	// ScopeOutside: the object is nowhere, and nothing rendered says what
	// its namespace holds of its kind (or an unrendered scope covers it),
	// so the reference cannot be checked.
	ScopeOutside
)

// Found reports whether the object was found (rendered or context).
func (s Scope) Found() bool { return s == ScopeRendered || s == ScopeContext }

// UnrenderedScope names objects that may exist although routeguard could
// not render them: what a HelmRelease whose chart could not be fetched, a
// Helm dependency that is not vendored, a Flux Kustomization from another
// source, or an Argo CD Application whose source is in another repository
// would create. A reference into such a scope is never
// dangling: the checks report RG0001 ("cannot be checked") with Reason.
type UnrenderedScope struct {
	// Namespace the objects would land in; "*" for any namespace and for
	// cluster-scoped objects. "" stands for cluster-scoped objects only.
	Namespace string
	// Kinds limits the scope to these kinds; empty: every kind.
	Kinds []manifest.GroupKind
	// Reason says what could not be rendered, for the finding's message
	// (e.g. `HelmRelease media/jellyfin: its chart comes from an
	// OCIRepository, which cannot be fetched offline`).
	Reason string
	// Makers are names the scope's objects are likely named after (a
	// HelmRelease's name, release name and chart, an Application's, a
	// ResourceSet's): of several scopes, one with a maker the absent
	// object is named after explains it best.
	Makers []string
	// Paths are repository directories (slash paths) whose files the
	// scope's source applies (a Kustomization's spec.path): a reference
	// from a file under one of them is best explained by that scope.
	Paths []string
}

// Covers reports whether the scope covers an object of gk in ns ("" for
// cluster-scoped objects).
func (u UnrenderedScope) Covers(gk manifest.GroupKind, ns string) bool {
	if u.Namespace != "*" && u.Namespace != ns {
		return false
	}
	if len(u.Kinds) == 0 {
		return true
	}
	for _, k := range u.Kinds {
		if k == gk || (k.Group == gk.Group && k.Kind == "*") {
			return true
		}
	}
	return false
}

// nsKind is one (namespace, kind) the app or a context path renders
// objects of; {ns, "", "Namespace"} records a rendered Namespace object.
type nsKind struct {
	ns string
	gk manifest.GroupKind
}

var namespaceGK = manifest.GroupKind{Kind: "Namespace"}

func (c *Context) presence(sets ...*manifest.Set) map[nsKind]bool {
	out := map[nsKind]bool{}
	for _, s := range sets {
		for _, o := range s.Objects() {
			gk := o.GroupKind()
			out[nsKind{c.Namespace(o), gk}] = true
			if gk == namespaceGK {
				out[nsKind{o.Name, namespaceGK}] = true
			}
		}
	}
	return out
}

// Checkable reports whether the absence of the object k names can be
// judged: the app or a context path renders objects of k's kind in k's
// namespace, or the Namespace object itself (for cluster-scoped kinds:
// any object of the kind), and no unrendered scope covers k. Only then is
// a reference to an absent object dangling; otherwise it cannot be checked.
func (c *Context) Checkable(k manifest.Key) bool {
	gk := manifest.GroupKind{Group: k.Group, Kind: k.Kind}
	if _, ok := c.unrenderedScope(gk, k.Namespace); ok {
		return false
	}
	if c.present[nsKind{k.Namespace, gk}] {
		return true
	}
	return k.Namespace != "" && c.present[nsKind{k.Namespace, namespaceGK}]
}

// RendersKind reports whether the app or a context path renders objects of
// gk in ns (for cluster-scoped kinds, ns is "").
func (c *Context) RendersKind(gk manifest.GroupKind, ns string) bool {
	return c.present[nsKind{ns, gk}]
}

func (c *Context) unrenderedScope(gk manifest.GroupKind, ns string) (UnrenderedScope, bool) {
	u, _, ok := c.unrenderedFor(gk, ns, "", "")
	return u, ok
}

// unrenderedMakerNamed reports whether an unrendered scope covering gk in
// ns has a maker (HelmRelease, Application, ResourceSet, release name,
// chart) that name is named after.
func (c *Context) unrenderedMakerNamed(gk manifest.GroupKind, ns, name string) bool {
	for _, u := range c.unrendered {
		if u.Covers(gk, ns) && slices.ContainsFunc(u.Makers, func(m string) bool { return namedAfter(name, m) }) {
			return true
		}
	}
	return false
}

// unrenderedFor returns the unrendered scope that best explains an absent
// object named name of gk in ns, referred to from the file from, and how
// many other scopes cover it too. Best is, in order: a scope whose maker
// the name is named after (a HelmRelease "jellyfin" for a Service
// "jellyfin-web") or whose path holds the referring file (the
// Kustomization that applies it); one whose reason names the object; one of
// ns rather than of any namespace; the first.
func (c *Context) unrenderedFor(gk manifest.GroupKind, ns, name, from string) (UnrenderedScope, int, bool) {
	best, rank, n := UnrenderedScope{}, -1, 0
	for _, u := range c.unrendered {
		if !u.Covers(gk, ns) {
			continue
		}
		n++
		r := 0
		if u.Namespace == ns {
			r = 1
		}
		if name != "" && strings.Contains(u.Reason, "/"+name+" ") {
			r = 2
		}
		if name != "" && slices.ContainsFunc(u.Makers, func(m string) bool { return namedAfter(name, m) }) ||
			from != "" && slices.ContainsFunc(u.Paths, func(p string) bool { return under(from, p) }) {
			r = 3 + r
		}
		if r > rank {
			best, rank = u, r
		}
	}
	return best, n - 1, n > 0
}

// under reports whether the slash path file lies in dir ("." and "" are
// the repository root).
func under(file, dir string) bool {
	dir = strings.Trim(strings.TrimPrefix(dir, "./"), "/")
	if dir == "" || dir == "." {
		return true
	}
	return strings.HasPrefix(strings.TrimPrefix(file, "./"), dir+"/")
}

// Resolve looks k up in the rendered set, then in the context objects.
// k.Namespace must be filled in for namespaced kinds. Objects that name no
// namespace are found under the default namespace too. An object found in
// neither is ScopeMissing when Checkable(k), else ScopeOutside.
func (c *Context) Resolve(k manifest.Key) (*manifest.Object, Scope) {
	if o, ok := lookup(c.set, k, c.defaultNS); ok {
		return o, ScopeRendered
	}
	if o, ok := lookup(c.contextSet, k, c.defaultNS); ok {
		return o, ScopeContext
	}
	if c.Checkable(k) && !c.secretsElsewhere(k) {
		if _, _, _, made := c.operatorOwner(k); !made {
			return nil, ScopeMissing
		}
	}
	return nil, ScopeOutside
}

var secretGK = manifest.GroupKind{Kind: "Secret"}

// secretsElsewhere reports whether k is a Secret in a namespace where the
// app renders none: Secrets are rarely in Git (ExternalSecret,
// SealedSecret, SOPS, operators make them in the cluster), so a rendered
// Namespace says nothing about which Secrets it will hold.
func (c *Context) secretsElsewhere(k manifest.Key) bool {
	return k.Group == "" && k.Kind == "Secret" && !c.present[nsKind{k.Namespace, secretGK}]
}

func lookup(s *manifest.Set, k manifest.Key, defaultNS string) (*manifest.Object, bool) {
	if o, ok := s.Get(k); ok {
		return o, true
	}
	if k.Namespace == defaultNS {
		k.Namespace = ""
		return s.Get(k)
	}
	return nil, false
}

// ReportOutside reports (RG0001) that o refers, as what, to target, whose
// absence cannot be judged (see Checkable); the message says why.
func (c *Context) ReportOutside(o *manifest.Object, what string, target manifest.Key) {
	why, fix := c.whyUnchecked(target, o.Source.File)
	c.ReportCode(o, CodeUnresolvedOutside, what, target.String(), why, fix)
}

// OutsideMessage is the text of an RG0001 finding: "<what> names
// <target>, which cannot be checked: <why>; <what to do>".
func (c *Context) OutsideMessage(what string, target manifest.Key) string {
	why, fix := c.WhyUnchecked(target)
	return Message(CodeUnresolvedOutside, what, target.String(), why, fix)
}

// WhyUnchecked says why the absence of target cannot be judged (an
// unrendered scope covers it, or nothing rendered holds its kind in its
// namespace) and what to do about it, for RG0001 messages.
func (c *Context) WhyUnchecked(target manifest.Key) (why, fix string) {
	return c.whyUnchecked(target, "")
}

// whyUnchecked is WhyUnchecked for a reference from the file from ("":
// not known), which helps name the likeliest maker.
func (c *Context) whyUnchecked(target manifest.Key, from string) (why, fix string) {
	gk := manifest.GroupKind{Group: target.Group, Kind: target.Kind}
	if c.Checkable(target) && c.secretsElsewhere(target) {
		return fmt.Sprintf("this app renders no Secret in namespace %q, and Secrets are usually made in the cluster (ExternalSecret, SealedSecret, SOPS, an operator)", target.Namespace),
			"render what makes it (add its path to contextPaths in .routeguard.yaml), or suppress " + CodeUnresolvedOutside + " for this object"
	}
	// A custom resource named like the object (vmauth-<VMAuth>) explains
	// it better than the unrendered scopes of its namespace, unless one of
	// those is itself named like it (HelmRelease loki for Service loki,
	// beside a GrafanaDatasource loki): a release makes its Services.
	if _, covered := c.unrenderedScope(gk, target.Namespace); covered && !c.unrenderedMakerNamed(gk, target.Namespace, target.Name) {
		if o, named, others, ok := c.operatorOwner(target); ok && named {
			more := ""
			if others > 0 {
				more = fmt.Sprintf(" (and %d more custom resources there)", others)
			}
			return "the operator of " + o.String() + more + " may create it (an operator names what it makes after its resource), and routeguard cannot see what operators create",
				"suppress " + CodeUnresolvedOutside + " for this object if the operator makes it; else fix the name"
		}
	}
	if c.Checkable(target) {
		if o, named, others, ok := c.operatorOwner(target); ok {
			more := ""
			if others > 0 {
				more = fmt.Sprintf(" (and %d more custom resources there)", others)
			}
			if named {
				return "the operator of " + o.String() + more + " may create it (an operator names what it makes after its resource), and routeguard cannot see what operators create",
					"suppress " + CodeUnresolvedOutside + " for this object if the operator makes it; else fix the name"
			}
			return fmt.Sprintf("namespace %q holds %s%s, a custom resource routeguard does not model, whose operator may create it (routeguard cannot see what operators create)", target.Namespace, o, more),
				"suppress " + CodeUnresolvedOutside + " for this object if an operator makes it; else fix the name"
		}
	}
	if u, more, ok := c.unrenderedFor(gk, target.Namespace, target.Name, from); ok {
		reason := u.Reason
		if more > 0 {
			reason += fmt.Sprintf("; and %d more", more)
		}
		return "it may be among the objects routeguard could not render (" + reason + ")",
			"render that source to check it, or suppress " + CodeUnresolvedOutside + " for this object"
	}
	why = fmt.Sprintf("this app renders no %s in namespace %q (nor the Namespace), so another app may deploy it", target.Kind, target.Namespace)
	if target.Namespace == "" {
		why = "this app renders no " + target.Kind + ", so another app may deploy it"
	}
	return why, "add the path that renders it to contextPaths in .routeguard.yaml, or suppress " + CodeUnresolvedOutside + " for this object"
}

// UnrenderedReason is the reason of the unrendered scope that best
// explains the absent object k ("" when none covers it), without counting
// the others: stable across revisions, for the route map.
func (c *Context) UnrenderedReason(k manifest.Key) string {
	u, _, ok := c.unrenderedFor(manifest.GroupKind{Group: k.Group, Kind: k.Kind}, k.Namespace, k.Name, "")
	if !ok {
		return ""
	}
	return u.Reason
}

// QualifiedName renders "ns/name", or "name" when ns is empty (a
// cluster-scoped object), never "/name".
func QualifiedName(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}
