package gatewayapi

import (
	"context"
	"fmt"
	"sort"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// ListenerSets checks that every ListenerSet attaches to its parent
// Gateway: the Gateway exists and its allowedListeners admits the
// ListenerSet's namespace (a Gateway admits none by default).
type ListenerSets struct{}

// Metadata implements analysis.Analyzer.
func (ListenerSets) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "gatewayapi.ListenerSets",
		Description: "Checks that ListenerSets name an existing Gateway whose allowedListeners admits them.",
		Doc:         "A ListenerSet's parentRef names an existing Gateway whose `allowedListeners` (None by default, Same, All, Selector) admits the ListenerSet's namespace.",
		Inputs: []manifest.GroupKind{
			{Group: Group, Kind: "ListenerSet"}, {Group: Group, Kind: "Gateway"}, {Kind: "Namespace"},
		},
	}
}

// Analyze implements analysis.Analyzer.
func (ListenerSets) Analyze(ctx context.Context, c *analysis.Context) error {
	for _, ls := range c.Objects().ByKind(Group, "ListenerSet") {
		if err := ctx.Err(); err != nil {
			return err
		}
		key := listenerSetParent(c, ls)
		if key.Group != Group || key.Kind != "Gateway" {
			continue // the CRD admits only Gateways; schema validation reports others
		}
		gw, scope := c.Resolve(key)
		switch scope {
		case analysis.ScopeOutside:
			c.ReportOutside(ls, "parentRef", key)
			continue
		case analysis.ScopeMissing:
			c.ReportCode(ls, analysis.CodeListenerSetDetached, analysis.QualifiedName(key.Namespace, key.Name), "does not exist")
			continue
		}
		if admits, known := listenerSetAdmitted(c, gw, ls); !admits && known {
			from := field.String(gw.Body, "spec", "allowedListeners", "namespaces", "from")
			if from == "" {
				from = "None (the default)"
			}
			c.ReportCode(ls, analysis.CodeListenerSetDetached, analysis.QualifiedName(c.Namespace(gw), gw.Name),
				fmt.Sprintf("does not admit ListenerSets from namespace %q (spec.allowedListeners.namespaces.from: %s)", c.Namespace(ls), from))
		}
	}
	return nil
}

// listenerSetParent returns the key of a ListenerSet's spec.parentRef,
// defaults applied (group gateway.networking.k8s.io, kind Gateway, the
// ListenerSet's namespace).
func listenerSetParent(c *analysis.Context, ls *manifest.Object) manifest.Key {
	p := field.Map(ls.Body, "spec", "parentRef")
	k := manifest.Key{Group: Group, Kind: "Gateway", Namespace: c.Namespace(ls), Name: field.String(p, "name")}
	if g, ok := p["group"].(string); ok {
		k.Group = g
	}
	if kind := field.String(p, "kind"); kind != "" {
		k.Kind = kind
	}
	if ns := field.String(p, "namespace"); ns != "" {
		k.Namespace = ns
	}
	return k
}

// listenerSetAdmitted evaluates the Gateway's spec.allowedListeners for ls.
// known is false when a Selector cannot be evaluated.
func listenerSetAdmitted(c *analysis.Context, gw, ls *manifest.Object) (admits, known bool) {
	ns := field.Map(gw.Body, "spec", "allowedListeners", "namespaces")
	l := listener{from: field.String(ns, "from"), selector: field.Map(ns, "selector")}
	if l.from == "" || l.from == "None" {
		return false, true
	}
	return namespaceAdmits(c, l, c.Namespace(gw), c.Namespace(ls))
}

// attachedListenerSets returns the ListenerSets (rendered and context)
// that attach to gw, in the precedence order of the spec: oldest first,
// then by namespace/name.
func attachedListenerSets(c *analysis.Context, gw *manifest.Object) []*manifest.Object {
	byGateway := c.Memo("gatewayapi.listenerSets", func() any {
		m := map[manifest.Key][]*manifest.Object{}
		for _, s := range []*manifest.Set{c.Objects(), c.ContextObjects()} {
			for _, ls := range s.ByKind(Group, "ListenerSet") {
				k := listenerSetParent(c, ls)
				m[k] = append(m[k], ls)
			}
		}
		for _, list := range m {
			sort.SliceStable(list, func(i, j int) bool { return precedes(c, list[i], list[j]) })
		}
		return m
	}).(map[manifest.Key][]*manifest.Object)
	var out []*manifest.Object
	for _, ls := range byGateway[manifest.Key{Group: Group, Kind: "Gateway", Namespace: c.Namespace(gw), Name: gw.Name}] {
		if ok, _ := listenerSetAdmitted(c, gw, ls); ok {
			out = append(out, ls)
		}
	}
	return out
}
