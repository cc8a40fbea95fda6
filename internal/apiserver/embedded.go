package apiserver

import structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

// The API server walks every custom resource three more times than its
// schema validation: to coerce and to validate the ObjectMeta of embedded
// resources (x-kubernetes-embedded-resource), building a field path and
// copying a node's schema at every step, and to prune null values. A
// schema without embedded resources gives the first two nothing to do
// (they act only at embedded nodes below the object's root, which
// routeguard validates itself), and an object without a null gives the
// third nothing; routeguard skips them then. Together they allocated a
// seventh of the bytes of validating 10,000 objects.

// hasEmbeddedResource reports whether a node of s (properties,
// additionalProperties, items: what those walks follow) is an embedded
// resource.
func hasEmbeddedResource(s *structuralschema.Structural) bool {
	if s == nil {
		return false
	}
	if s.XEmbeddedResource {
		return true
	}
	for name := range s.Properties {
		prop := s.Properties[name]
		if hasEmbeddedResource(&prop) {
			return true
		}
	}
	if s.AdditionalProperties != nil && hasEmbeddedResource(s.AdditionalProperties.Structural) {
		return true
	}
	return hasEmbeddedResource(s.Items)
}
