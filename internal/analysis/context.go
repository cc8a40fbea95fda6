package analysis

import (
	"fmt"
	"sync"

	"github.com/routeguard/routeguard/internal/manifest"
)

// Scope says where Context.Resolve found (or did not find) an object.
type Scope int

const (
	// ScopeRendered: the object is in the rendered set.
	ScopeRendered Scope = iota
	// ScopeContext: the object is among the context paths' objects.
	ScopeContext
	// ScopeMissing: the object is nowhere, and its namespace is one the app
	// (or a context path) renders, so the reference is dangling.
	ScopeMissing
	// ScopeOutside: the object is nowhere, and its namespace is outside what
	// was rendered, so the reference cannot be checked.
	ScopeOutside
)

// Found reports whether the object was found (rendered or context).
func (s Scope) Found() bool { return s == ScopeRendered || s == ScopeContext }

// Context is what an analyzer sees: the rendered set, the context objects,
// shared indexes, and the sink findings go to. It is built once per run;
// every analyzer gets a view carrying its own name.
type Context struct {
	*shared
	analyzer string
}

type shared struct {
	set        *manifest.Set
	contextSet *manifest.Set
	defaultNS  string
	rendered   map[string]bool // namespaces the app renders
	known      map[string]bool // namespaces the context paths render
	clusterGK  map[manifest.GroupKind]bool
	unrendered []UnrenderedScope

	memoMu sync.Mutex
	memo   map[string]*memoEntry

	sinkMu sync.Mutex
	sink   []Finding
}

type memoEntry struct {
	once sync.Once
	v    any
}

// NewContext builds a context over set (the rendered objects) and
// contextSet (objects used only to resolve references; may be nil).
// defaultNS is the namespace of objects that name none ("default" if empty).
func NewContext(set, contextSet *manifest.Set, defaultNS string) *Context {
	if set == nil {
		set = manifest.NewSet()
	}
	if contextSet == nil {
		contextSet = manifest.NewSet()
	}
	if defaultNS == "" {
		defaultNS = "default"
	}
	s := &shared{set: set, contextSet: contextSet, defaultNS: defaultNS,
		rendered: map[string]bool{}, known: map[string]bool{}, memo: map[string]*memoEntry{},
		clusterGK: clusterScopedKinds(set, contextSet)}
	c := &Context{shared: s}
	c.rendered = c.namespacesOf(set)
	c.known = c.namespacesOf(contextSet)
	return c
}

func (c *Context) namespacesOf(s *manifest.Set) map[string]bool {
	out := map[string]bool{}
	for _, o := range s.Objects() {
		if o.Group() == "" && o.Kind == "Namespace" {
			out[o.Name] = true
			continue
		}
		if ns := c.Namespace(o); ns != "" {
			out[ns] = true
		}
	}
	return out
}

// forAnalyzer returns a view of c that stamps findings with name.
func (c *Context) forAnalyzer(name string) *Context {
	return &Context{shared: c.shared, analyzer: name}
}

// Objects returns the rendered set: what will be applied, and the only
// objects findings may be about.
func (c *Context) Objects() *manifest.Set { return c.set }

// ContextObjects returns the objects of the context paths (never nil). They
// resolve references and are never emitted or reported on.
func (c *Context) ContextObjects() *manifest.Set { return c.contextSet }

// DefaultNamespace is the namespace of namespaced objects that name none.
func (c *Context) DefaultNamespace() string { return c.defaultNS }

// Namespace returns o's namespace, defaulting to the app's default namespace
// for namespaced kinds; "" for cluster-scoped kinds.
func (c *Context) Namespace(o *manifest.Object) string {
	if c.clusterGK[o.GroupKind()] {
		return ""
	}
	if o.Namespace != "" {
		return o.Namespace
	}
	return c.defaultNS
}

// Ref returns the reference of o with its namespace defaulted.
func (c *Context) Ref(o *manifest.Object) ObjectRef {
	r := RefOf(o)
	r.Namespace = c.Namespace(o)
	return r
}

// RendersNamespace reports whether the app renders objects in ns.
func (c *Context) RendersNamespace(ns string) bool { return c.rendered[ns] }

// KnowsNamespace reports whether the app or a context path renders objects in ns.
func (c *Context) KnowsNamespace(ns string) bool { return c.rendered[ns] || c.known[ns] }

// Resolve looks k up in the rendered set, then in the context objects.
// k.Namespace must be filled in for namespaced kinds. Objects that name no
// namespace are found under the default namespace too.
func (c *Context) Resolve(k manifest.Key) (*manifest.Object, Scope) {
	if o, ok := lookup(c.set, k, c.defaultNS); ok {
		return o, ScopeRendered
	}
	if o, ok := lookup(c.contextSet, k, c.defaultNS); ok {
		return o, ScopeContext
	}
	if _, ok := c.unrenderedScope(k); ok {
		return nil, ScopeOutside
	}
	if k.Namespace == "" || c.KnowsNamespace(k.Namespace) {
		return nil, ScopeMissing
	}
	return nil, ScopeOutside
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

// Memo returns the value build produces for key, building it once per run
// and sharing it between analyzers (indexes: Services by name, grants...).
func (c *Context) Memo(key string, build func() any) any {
	c.memoMu.Lock()
	e, ok := c.memo[key]
	if !ok {
		e = &memoEntry{}
		c.memo[key] = e
	}
	c.memoMu.Unlock()
	e.once.Do(func() { e.v = build() })
	return e.v
}

// Report records a finding. Severity overrides and suppressions are applied
// by the runner, not here; a zero Severity means the catalog default.
func (c *Context) Report(f Finding) {
	if f.Analyzer == "" {
		f.Analyzer = c.analyzer
	}
	c.sinkMu.Lock()
	c.sink = append(c.sink, f)
	c.sinkMu.Unlock()
}

// Reportf reports a finding with code about o, at o's source.
func (c *Context) Reportf(o *manifest.Object, code, format string, a ...any) {
	c.Report(Finding{Code: code, Message: fmt.Sprintf(format, a...), Object: c.Ref(o), Source: o.Source})
}

// ReportOutside reports (RG0001) that o refers, as what, to target in a
// namespace this app does not render, so the reference cannot be checked.
func (c *Context) ReportOutside(o *manifest.Object, what string, target manifest.Key) {
	if u, ok := c.unrenderedScope(target); ok {
		c.Reportf(o, CodeUnresolvedOutside,
			"%s %s cannot be checked: it may be among the objects routeguard could not render (%s); render that source to check it, or suppress %s for this object",
			what, target, u.Reason, CodeUnresolvedOutside)
		return
	}
	c.Reportf(o, CodeUnresolvedOutside,
		"%s %s is in namespace %q, which this app does not render, so it cannot be checked; "+
			"add the path that renders it to contextPaths in .routeguard.yaml, or suppress %s for this object",
		what, target, target.Namespace, CodeUnresolvedOutside)
}

func (c *Context) findings() []Finding {
	c.sinkMu.Lock()
	defer c.sinkMu.Unlock()
	return append([]Finding(nil), c.sink...)
}

// builtinClusterScoped lists the cluster-scoped kinds routeguard meets.
var builtinClusterScoped = []manifest.GroupKind{
	{Kind: "Namespace"}, {Kind: "Node"}, {Kind: "PersistentVolume"},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"},
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"},
	{Group: "storage.k8s.io", Kind: "StorageClass"},
	{Group: "networking.k8s.io", Kind: "IngressClass"},
	{Group: "gateway.networking.k8s.io", Kind: "GatewayClass"},
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"},
	{Group: "apiregistration.k8s.io", Kind: "APIService"},
	{Group: "node.k8s.io", Kind: "RuntimeClass"},
	{Group: "cert-manager.io", Kind: "ClusterIssuer"},
}

// clusterScopedKinds returns the built-in cluster-scoped kinds plus those
// the sets' CustomResourceDefinitions declare with scope Cluster.
func clusterScopedKinds(sets ...*manifest.Set) map[manifest.GroupKind]bool {
	out := map[manifest.GroupKind]bool{}
	for _, gk := range builtinClusterScoped {
		out[gk] = true
	}
	for _, s := range sets {
		for _, crd := range s.ByKind("apiextensions.k8s.io", "CustomResourceDefinition") {
			spec, _ := crd.Body["spec"].(map[string]any)
			names, _ := spec["names"].(map[string]any)
			scope, _ := spec["scope"].(string)
			group, _ := spec["group"].(string)
			kind, _ := names["kind"].(string)
			if scope == "Cluster" && kind != "" {
				out[manifest.GroupKind{Group: group, Kind: kind}] = true
			}
		}
	}
	return out
}
