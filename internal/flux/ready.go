package flux

import (
	"github.com/routeguard/routeguard/internal/field"
)

// ready reports whether what a node reads from the cluster is there: its
// source object (or this checkout, or a mapped directory), the
// ArtifactGenerator of its ExternalArtifact, and its required
// substituteFrom / valuesFrom ConfigMaps and Secrets (applied, or made in
// the cluster by an object the tree applies).
func (b *sources) ready(n *Node) bool {
	o := n.Object
	spec := field.Map(o.Body, "spec")
	if n.IsKustomization() {
		if !b.sourceReady(sourceRef(field.Map(spec, "sourceRef"), o.Namespace)) {
			return false
		}
		return b.refsReady(field.Maps(spec, "postBuild", "substituteFrom"), o.Namespace)
	}
	if ref := field.Map(spec, "chartRef"); ref != nil {
		if !b.sourceReady(sourceRef(ref, o.Namespace)) {
			return false
		}
	} else if !b.sourceReady(sourceRef(field.Map(spec, "chart", "spec", "sourceRef"), o.Namespace)) {
		return false
	}
	return b.refsReady(field.Maps(spec, "valuesFrom"), o.Namespace)
}

func (b *sources) sourceReady(ref SourceKey) bool {
	if _, ok := b.mapped[ref]; ok || b.self[ref] {
		return true
	}
	switch ref.Kind {
	case "ExternalArtifact":
		gen, _, _ := b.generatorOf(ref)
		return gen != nil
	case "GitRepository", "OCIRepository", "Bucket", "HelmRepository", "HelmChart":
		_, ok := b.state.source(SourceGroup, ref.Kind, ref.Namespace, ref.Name)
		return ok
	}
	return true // an unknown kind fails when built
}

func (b *sources) refsReady(refs []map[string]any, ns string) bool {
	for _, r := range refs {
		if field.Bool(r, "optional") {
			continue
		}
		kind, name := field.String(r, "kind"), field.String(r, "name")
		if kind != "ConfigMap" && kind != "Secret" {
			continue
		}
		if _, ok := b.state.lookup(kind, ns, name); ok {
			continue
		}
		if _, ok := b.state.madeBy(ns, name); ok && kind == "Secret" {
			continue
		}
		return false
	}
	return true
}
