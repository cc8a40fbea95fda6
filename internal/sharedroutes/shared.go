// Package sharedroutes finds, in a routing review, the changes that cross
// a team boundary: a route that attaches to a Gateway another Application
// (or Flux Kustomization, or app path) renders, and any change to a
// Gateway that routes of others attach to. Each is named with both
// owners (and their Argo CD projects) and the CODEOWNERS entries that
// cover the files involved, so that the owners of the shared Gateway see
// what they must review.
package sharedroutes

import (
	"cmp"
	"reflect"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/codeowners"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/routemap"
)

// Revision is one side of the review.
type Revision struct {
	Map    *routemap.Map
	Set    *manifest.Set
	Owners map[manifest.Key]pipeline.Owner
}

// Item is one change to shared routing.
type Item struct {
	Change string `json:"change"` // routemap.Added, Removed, Changed
	// Route is the route whose attachment changed ("HTTPRoute ns/name");
	// empty when the Gateway itself changed.
	Route        string          `json:"route,omitempty"`
	RouteOwner   *pipeline.Owner `json:"routeOwner,omitempty"`
	Gateway      string          `json:"gateway"` // "Gateway ns/name", "Istio Gateway ns/name"
	GatewayOwner pipeline.Owner  `json:"gatewayOwner"`
	// Files are the files of the route and the Gateway with the
	// CODEOWNERS entries that cover them.
	Files []File `json:"files"`
}

// File is one file of a change and who owns it.
type File struct {
	Role    string             `json:"role"` // "route", "Gateway"
	Path    string             `json:"path"`
	Entries []codeowners.Entry `json:"codeowners"`
}

// Find lists the shared routing changes between base and head, given the
// routing diff of the two maps. owners may be nil (no CODEOWNERS file).
func Find(base, head Revision, diff *routemap.Diff, owners *codeowners.File) []Item {
	var items []Item
	seen := map[string]bool{}
	add := func(it Item) {
		k := it.Change + "\x00" + it.Route + "\x00" + it.Gateway
		if !seen[k] {
			seen[k] = true
			items = append(items, it)
		}
	}
	// Routes whose attachment to another owner's Gateway changed, or whose
	// entries under it changed.
	touched := map[string]string{} // route -> change
	for _, c := range diff.Attachments {
		a := *cmp.Or(c.Head, c.Base)
		touched[a.Route+"\x00"+a.Parent] = c.Change
	}
	for _, c := range diff.Entries {
		e := *cmp.Or(c.Head, c.Base)
		for _, rev := range []Revision{head, base} {
			for _, a := range rev.Map.Attachments {
				if a.Route == e.Route {
					if _, ok := touched[a.Route+"\x00"+a.Parent]; !ok {
						touched[a.Route+"\x00"+a.Parent] = routemap.Changed
					}
				}
			}
		}
	}
	for _, k := range slices.Sorted(keys(touched)) {
		route, parent, _ := strings.Cut(k, "\x00")
		rev := head
		if _, ok := objectOf(head.Set, route); !ok {
			rev = base
		}
		rk, rok := keyOf(route)
		gk, gok := keyOf(parent)
		if !rok || !gok {
			continue
		}
		ro, rown := rev.Owners[rk]
		go_, gwRev, gown := ownerOf(gk, rev, head, base)
		if !rown || !gown || ro == go_ {
			continue
		}
		it := Item{Change: touched[k], Route: route, RouteOwner: &ro, Gateway: parent, GatewayOwner: go_}
		it.Files = files(owners, fileOf(rev.Set, rk, "route"), fileOf(gwRev.Set, gk, "Gateway"))
		add(it)
	}
	// Gateways that changed and that routes of other owners attach to.
	for _, rev := range []Revision{head, base} {
		for _, o := range rev.Set.Objects() {
			if !isGateway(o) {
				continue
			}
			k := o.Key()
			change := gatewayChange(base.Set, head.Set, k)
			if change == "" {
				continue
			}
			gw := parentName(o)
			owner, ok := rev.Owners[k]
			if !ok {
				continue
			}
			if !sharedBy(gw, owner, base, head) {
				continue
			}
			add(Item{Change: change, Gateway: gw, GatewayOwner: owner, Files: files(owners, fileOf(rev.Set, k, "Gateway"))})
		}
	}
	slices.SortStableFunc(items, func(a, b Item) int {
		return cmp.Or(cmp.Compare(a.Gateway, b.Gateway), cmp.Compare(a.Route, b.Route), cmp.Compare(a.Change, b.Change))
	})
	return items
}

// ownerOf finds k's owner in the first revision that has one.
func ownerOf(k manifest.Key, revs ...Revision) (pipeline.Owner, Revision, bool) {
	for _, rev := range revs {
		if o, ok := rev.Owners[k]; ok {
			return o, rev, true
		}
	}
	return pipeline.Owner{}, Revision{}, false
}

// sharedBy reports whether a route of another owner than owner attaches
// to gw at either revision.
func sharedBy(gw string, owner pipeline.Owner, base, head Revision) bool {
	for _, rev := range []Revision{base, head} {
		for _, a := range rev.Map.Attachments {
			if a.Parent != gw {
				continue
			}
			if rk, ok := keyOf(a.Route); ok {
				if ro, ok := rev.Owners[rk]; ok && ro != owner {
					return true
				}
			}
		}
	}
	return false
}

func gatewayChange(base, head *manifest.Set, k manifest.Key) string {
	b, inBase := base.Get(k)
	h, inHead := head.Get(k)
	switch {
	case inBase && !inHead:
		return routemap.Removed
	case !inBase && inHead:
		return routemap.Added
	case inBase && inHead && !reflect.DeepEqual(b.Body, h.Body):
		return routemap.Changed
	}
	return ""
}

func isGateway(o *manifest.Object) bool {
	return o.Kind == "Gateway" && (o.Group() == "gateway.networking.k8s.io" || o.Group() == "networking.istio.io")
}

// parentName is how the route map names a Gateway.
func parentName(o *manifest.Object) string {
	if o.Group() == "networking.istio.io" {
		return "Istio Gateway " + o.Namespace + "/" + o.Name
	}
	return "Gateway " + o.Namespace + "/" + o.Name
}

// keyOf turns a route map name ("HTTPRoute ns/name", "Gateway ns/name",
// "Istio Gateway ns/name", "VirtualService ns/name") into its object key.
func keyOf(name string) (manifest.Key, bool) {
	group := "gateway.networking.k8s.io"
	if rest, ok := strings.CutPrefix(name, "Istio "); ok {
		name, group = rest, "networking.istio.io"
	}
	kind, ref, ok := strings.Cut(name, " ")
	ns, n, ok2 := strings.Cut(ref, "/")
	if !ok || !ok2 {
		return manifest.Key{}, false
	}
	switch kind {
	case "VirtualService":
		group = "networking.istio.io"
	case "Gateway", "ListenerSet", "HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute":
	default:
		return manifest.Key{}, false
	}
	return manifest.Key{Group: group, Kind: kind, Namespace: ns, Name: n}, true
}

func objectOf(set *manifest.Set, name string) (*manifest.Object, bool) {
	k, ok := keyOf(name)
	if !ok {
		return nil, false
	}
	return set.Get(k)
}

type roleFile struct{ role, path string }

func fileOf(set *manifest.Set, k manifest.Key, role string) roleFile {
	if o, ok := set.Get(k); ok {
		return roleFile{role, o.Source.File}
	}
	return roleFile{role: role}
}

func files(owners *codeowners.File, fs ...roleFile) []File {
	out := []File{}
	for _, f := range fs {
		if f.path == "" {
			continue
		}
		entries := owners.Owners(f.path)
		if entries == nil {
			entries = []codeowners.Entry{}
		}
		out = append(out, File{Role: f.role, Path: f.path, Entries: entries})
	}
	return out
}

func keys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
