package apiserver

import (
	"sync"

	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// kube-openapi's schema validator builds a validator for every field and
// array item it meets, on every object (a third of the CPU time of
// validating the synthetic repository of 10,000 objects once the CEL
// rules' adaptor was cached). Its validators do not change once built
// (only SetPath writes to them, and validation never calls it) and it asks
// its options for them, so cachedOpenAPI gives it the same validators,
// built once per schema node and path for the compiled CRD version (the
// properties a schema defines and the first items of arrays: bounded by
// the schema, not by the objects).

// cachedOpenAPI validates as apiextensions' schema validator for a create
// (NewSchemaValidator's, with no old object: kube-openapi's validator with
// the default formats), with the validators of fields and items kept.
type cachedOpenAPI struct{ root *openAPINode }

var _ apiservervalidation.SchemaCreateValidator = cachedOpenAPI{}

func newCachedOpenAPI(schema *spec.Schema) cachedOpenAPI {
	return cachedOpenAPI{newOpenAPINode(schema, schema, "", strfmt.Default)}
}

// Validate implements apiservervalidation.SchemaCreateValidator.
func (c cachedOpenAPI) Validate(obj any, _ ...apiservervalidation.ValidationOption) *validate.Result {
	return c.root.v.Validate(obj)
}

// openAPINode is the validator of one schema node at one path, and those
// of its fields and items once asked for.
type openAPINode struct {
	schema *spec.Schema
	v      *validate.SchemaValidator
	fields sync.Map // field name -> *openAPINode
	items  sync.Map // index -> *openAPINode
}

func newOpenAPINode(schema *spec.Schema, root any, path string, formats strfmt.Registry) *openAPINode {
	n := &openAPINode{schema: schema}
	var opts []validate.Option
	// Which schema a field or an item gets must follow from its name or
	// index alone: not so with patternProperties (a name may match
	// several), tuples or additionalItems. CRDs allow none of them; a node
	// that has them gets its children built each time, as upstream does.
	if len(schema.PatternProperties) == 0 && schema.AdditionalItems == nil && (schema.Items == nil || len(schema.Items.Schemas) == 0) {
		opts = append(opts, func(o *validate.SchemaValidatorOptions) {
			o.NewValidatorForField = n.field
			o.NewValidatorForIndex = n.index
		})
	}
	n.v = validate.NewSchemaValidator(schema, root, path, formats, opts...)
	return n
}

// field returns the validator of a field: a property's schema when the
// node has the property, else additionalProperties' (the object
// validator's only two callers here). Only properties are kept: the keys
// of a map (additionalProperties) are the object's, as many as objects
// may hold, and their validators are built each time, as upstream does.
func (n *openAPINode) field(field string, schema *spec.Schema, root any, path string, formats strfmt.Registry, _ ...validate.Option) validate.ValueValidator {
	if _, ok := n.schema.Properties[field]; !ok {
		return validate.NewSchemaValidator(schema, root, path, formats)
	}
	if c, ok := n.fields.Load(field); ok {
		return c.(*openAPINode).v
	}
	c, _ := n.fields.LoadOrStore(field, newOpenAPINode(schema, root, path, formats))
	return c.(*openAPINode).v
}

// maxKeptIndex bounds the array items whose validators are kept per node:
// lists longer than that are rare, and an object should not grow the
// cache without bound.
const maxKeptIndex = 64

// index returns the validator of an array item (items' schema).
func (n *openAPINode) index(i int, schema *spec.Schema, root any, path string, formats strfmt.Registry, _ ...validate.Option) validate.ValueValidator {
	if i >= maxKeptIndex {
		return validate.NewSchemaValidator(schema, root, path, formats)
	}
	if c, ok := n.items.Load(i); ok {
		return c.(*openAPINode).v
	}
	c, _ := n.items.LoadOrStore(i, newOpenAPINode(schema, root, path, formats))
	return c.(*openAPINode).v
}
