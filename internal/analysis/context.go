package analysis

import (
	"slices"
	"sync"

	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/resultcache"
)

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
	clusterGK  map[manifest.GroupKind]bool
	// present records what the app and its context paths render: every
	// (namespace, kind) holding at least one object, and every Namespace
	// object (as {ns, Namespace}). It decides whether an absent object is
	// dangling or cannot be checked (see Resolve).
	present    map[nsKind]bool
	unrendered []UnrenderedScope
	cluster    Cluster
	results    *resultcache.Cache

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
	return newContext(RunOptions{Set: set, ContextSet: contextSet, DefaultNamespace: defaultNS})
}

// NewRunContext builds the context of a run: NewContext plus the run's
// unrendered scopes.
func NewRunContext(opts RunOptions) *Context { return newContext(opts) }

func newContext(opts RunOptions) *Context {
	set, contextSet, defaultNS := opts.Set, opts.ContextSet, opts.DefaultNamespace
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
		memo: map[string]*memoEntry{}, clusterGK: clusterScopedKinds(set, contextSet),
		unrendered: slices.Clone(opts.Unrendered), cluster: opts.Cluster, results: opts.ResultCache}
	c := &Context{shared: s}
	c.present = c.presence(set, contextSet)
	return c
}

// ResultCache returns the run's cache of per-object results (nil: none).
func (c *Context) ResultCache() *resultcache.Cache { return c.results }

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
			scope := field.String(crd.Body, "spec", "scope")
			group := field.String(crd.Body, "spec", "group")
			kind := field.String(crd.Body, "spec", "names", "kind")
			if scope == "Cluster" && kind != "" {
				out[manifest.GroupKind{Group: group, Kind: kind}] = true
			}
		}
	}
	return out
}
