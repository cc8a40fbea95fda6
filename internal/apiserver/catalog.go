package apiserver

import (
	"fmt"
	"sync"

	"github.com/routeguard/routeguard/internal/crds"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Candidate is a CRD that may define a custom resource's kind.
type Candidate struct {
	CRD     *CRD  // nil when Err is set
	Err     error // the CRD does not parse (routeguard cannot validate against it)
	Origin  string
	Bundled bool
	Channel string // Gateway API channel of a bundled CRD
	// Controller: a bundled CRD of Flux or Argo CD, whose release the
	// cluster may run older or newer than the bundle's.
	Controller bool
}

// CatalogOptions are the CRDs a catalog knows, by where they come from.
type CatalogOptions struct {
	App     []*manifest.Object // rendered with the app: installed by the same sync
	Context []*manifest.Object // rendered by the context paths
	Cluster []*manifest.Object // the cluster's (--crd-dir)
	// GatewayAPIChannel is the channel of the Gateway API CRDs the cluster
	// runs when none of the above defines them: "standard",
	// "experimental", or "" (not known: standard first, then experimental).
	GatewayAPIChannel string
}

// Catalog finds the CRD of a custom resource kind, in order of precedence:
// a CRD the app renders (the sync installs it), one a context path renders,
// one of the cluster's (--crd-dir), then the bundled Gateway API and Istio
// CRDs. CRDs are parsed and compiled on first use. A Catalog is safe for
// concurrent use.
type Catalog struct {
	byGK    map[manifest.GroupKind]*lazyCRD
	channel string
	// found memoizes Lookup (GroupKind -> []Candidate): validation asks
	// up to five times per object, and building the answer allocated
	// 14 MB over the 10,000-object benchmark.
	found sync.Map
}

type lazyCRD struct {
	once   sync.Once
	obj    *manifest.Object
	origin string
	c      *CRD
	err    error
}

func (l *lazyCRD) get() (*CRD, error) {
	l.once.Do(func() { l.c, l.err = ParseCRD(l.obj.Body, l.origin) })
	return l.c, l.err
}

// NewCatalog indexes the CRDs of opts (none is parsed yet).
func NewCatalog(opts CatalogOptions) *Catalog {
	c := &Catalog{byGK: map[manifest.GroupKind]*lazyCRD{}, channel: opts.GatewayAPIChannel}
	for _, src := range []struct {
		objs []*manifest.Object
		what string
	}{{opts.App, "rendered with the app"}, {opts.Context, "rendered by a context path"}, {opts.Cluster, "the cluster's, from --crd-dir"}} {
		for _, o := range src.objs {
			gk, ok := definedKind(o)
			if !ok {
				continue
			}
			if _, seen := c.byGK[gk]; seen {
				continue // an earlier source wins
			}
			c.byGK[gk] = &lazyCRD{obj: o, origin: fmt.Sprintf("CRD %s (%s, %s)", o.Name, src.what, o.Source)}
		}
	}
	return c
}

// definedKind returns the group and kind a CRD object defines.
func definedKind(o *manifest.Object) (manifest.GroupKind, bool) {
	if o.Group() != "apiextensions.k8s.io" || o.Kind != "CustomResourceDefinition" {
		return manifest.GroupKind{}, false
	}
	spec, _ := o.Body["spec"].(map[string]any)
	names, _ := spec["names"].(map[string]any)
	group, _ := spec["group"].(string)
	kind, _ := names["kind"].(string)
	return manifest.GroupKind{Group: group, Kind: kind}, group != "" && kind != ""
}

// Lookup returns the CRDs that may define group/kind, the authoritative one
// first. Only the bundled Gateway API CRDs give two candidates, when the
// channel is not known: standard, then experimental. Nil when no CRD is
// known.
//
// The slice is shared by every caller: do not modify it.
func (c *Catalog) Lookup(group, kind string) []Candidate {
	gk := manifest.GroupKind{Group: group, Kind: kind}
	if v, ok := c.found.Load(gk); ok {
		return v.([]Candidate)
	}
	v, _ := c.found.LoadOrStore(gk, c.lookup(gk))
	return v.([]Candidate)
}

func (c *Catalog) lookup(gk manifest.GroupKind) []Candidate {
	group, kind := gk.Group, gk.Kind
	if l, ok := c.byGK[gk]; ok {
		crd, err := l.get()
		return []Candidate{{CRD: crd, Err: err, Origin: l.origin}}
	}
	var out []Candidate
	idx := crds.Bundled()
	for _, e := range idx.Find(group, kind) {
		if e.Channel != "" && c.channel != "" && e.Channel != c.channel {
			continue
		}
		crd, err := bundledCRD(idx, e)
		out = append(out, Candidate{CRD: crd, Err: err, Origin: idx.Origin(e), Bundled: true, Channel: e.Channel, Controller: e.Source == "flux" || e.Source == "argocd"})
	}
	return out
}

// The bundled CRDs are parsed once per process and shared by every run:
// their compiled versions (CEL programs included) are the costliest part of
// validation to build.
var (
	bundledMu   sync.Mutex
	bundledByFn = map[string]*lazyBundled{}
)

type lazyBundled struct {
	once sync.Once
	c    *CRD
	err  error
}

func bundledCRD(idx *crds.Index, e crds.Entry) (*CRD, error) {
	bundledMu.Lock()
	l, ok := bundledByFn[e.File]
	if !ok {
		l = &lazyBundled{}
		bundledByFn[e.File] = l
	}
	bundledMu.Unlock()
	l.once.Do(func() {
		data, err := crds.Read(e)
		if err != nil {
			l.err = err
			return
		}
		l.c, l.err = bundledCRDJSON(data, idx.Origin(e))
	})
	return l.c, l.err
}

// BundledKinds returns the group and kind of every bundled CRD.
func BundledKinds() []manifest.GroupKind {
	var out []manifest.GroupKind
	for _, e := range crds.Bundled().CRDs {
		out = append(out, manifest.GroupKind{Group: e.Group, Kind: e.Kind})
	}
	return out
}
