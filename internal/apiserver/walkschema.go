package apiserver

import structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

// The API server defaults a custom resource and checks its list types
// (x-kubernetes-list-type set and map) by walking the object with the
// whole structural schema: structuraldefaulting.Default and
// structurallisttype.ValidateListSetsAndMaps look up every field of the
// object in its node's properties, and the lookup copies the property's
// schema (a Structural, a few hundred bytes) to the heap for the walk to
// recurse into (`if prop, found := s.Properties[k]; found { Default(x[k],
// &prop) }`). On the 10,000-object repository the two walks allocated a
// tenth of all of routeguard's bytes, almost all of it at nodes below
// which there is no default and no list type, where the walk changes and
// reports nothing.
//
// So routeguard gives each walk the part of the schema it can act on:
// the nodes with a default (or a set/map list type) and the nodes on the
// way to them, each holding only the fields that walk reads. The walk
// then stops where it would have had nothing to do, with the same
// changes and the same errors (TestWalkSchemas; every test of the package
// compares with the whole schema through validateCompared). No fork of
// apiextensions is needed.

// defaultingSchema returns the part of s that structuraldefaulting.Default
// can act on: nil when no node of s has a default.
//
// Default reads, at each node, the properties' defaults and
// nullability, then recurses into the object's fields through properties
// or, for a field the node does not declare, additionalProperties, and
// into array items. A node whose subtree has no default changes nothing
// (a non-nullable null it meets is replaced by the absent default:
// nil again), so it is left out, with one exception: where
// additionalProperties is kept, every property stays (empty when it has
// no default below it), since a field found in properties is not
// defaulted through additionalProperties.
func defaultingSchema(s *structuralschema.Structural) *structuralschema.Structural {
	if s == nil {
		return nil
	}
	out := &structuralschema.Structural{}
	out.Generic.Default = s.Generic.Default
	out.Generic.Nullable = s.Generic.Nullable
	keep := s.Generic.Default.Object != nil
	if s.AdditionalProperties != nil {
		if sub := defaultingSchema(s.AdditionalProperties.Structural); sub != nil {
			out.AdditionalProperties = &structuralschema.StructuralOrBool{Structural: sub, Bool: s.AdditionalProperties.Bool}
			keep = true
		}
	}
	for name := range s.Properties {
		prop := s.Properties[name]
		sub := defaultingSchema(&prop)
		if sub != nil {
			keep = true
		} else if out.AdditionalProperties != nil {
			sub = &structuralschema.Structural{}
		} else {
			continue
		}
		if out.Properties == nil {
			out.Properties = map[string]structuralschema.Structural{}
		}
		out.Properties[name] = *sub
	}
	if sub := defaultingSchema(s.Items); sub != nil {
		out.Items = sub
		keep = true
	}
	if !keep {
		return nil
	}
	return out
}

// listTypeSchema returns the part of s that
// structurallisttype.ValidateListSetsAndMaps can report on: nil when no
// node of s is a list of type set or map.
//
// The walk recurses into the object's fields through properties and
// additionalProperties (both, independently) and into array items, and
// checks the arrays whose node has x-kubernetes-list-type set or map
// (with x-kubernetes-list-map-keys); nothing else of a node is read.
func listTypeSchema(s *structuralschema.Structural) *structuralschema.Structural {
	if s == nil {
		return nil
	}
	out := &structuralschema.Structural{}
	keep := false
	if t := s.XListType; t != nil && (*t == "set" || *t == "map") {
		out.XListType, out.XListMapKeys = t, s.XListMapKeys
		keep = true
	}
	if s.AdditionalProperties != nil {
		if sub := listTypeSchema(s.AdditionalProperties.Structural); sub != nil {
			out.AdditionalProperties = &structuralschema.StructuralOrBool{Structural: sub, Bool: s.AdditionalProperties.Bool}
			keep = true
		}
	}
	for name := range s.Properties {
		prop := s.Properties[name]
		if sub := listTypeSchema(&prop); sub != nil {
			if out.Properties == nil {
				out.Properties = map[string]structuralschema.Structural{}
			}
			out.Properties[name] = *sub
			keep = true
		}
	}
	if sub := listTypeSchema(s.Items); sub != nil {
		out.Items = sub
		keep = true
	}
	if !keep {
		return nil
	}
	return out
}
