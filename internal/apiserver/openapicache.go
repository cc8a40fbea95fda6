package apiserver

import (
	"reflect"
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
	return c.root.Validate(obj)
}

// openAPINode is the validator of one schema node at one path, and those
// of its fields and items once asked for.
//
// kube-openapi's object validator copies the schema of every property the
// node declares onto the heap for every object it validates, present in
// the object or not (`for pName, pSchema := range o.Properties { ...
// NewValidatorForField(pName, &pSchema, ...) }`: the loop variable
// escapes): a sixth of all the bytes routeguard allocated on 10,000
// objects. So a node whose fields follow from their names alone
// (ownProperties) hands kube-openapi a shallow copy of its schema without
// the properties, and validates the properties the object has itself,
// with the kept validators: the same validators on the same values, so
// the same errors (kube-openapi keeps a result's errors unique, and
// routeguard sorts the findings, so their order within a result does not
// matter).
type openAPINode struct {
	schema *spec.Schema
	v      *validate.SchemaValidator
	// properties are validated by the node (ownProperties); the
	// validators of those the objects have are kept in fields.
	ownProperties bool
	path          string
	root          any
	formats       strfmt.Registry
	fields        sync.Map // field name -> *openAPINode
	items         sync.Map // index -> *openAPINode
}

var _ validate.ValueValidator = (*openAPINode)(nil)

func newOpenAPINode(schema *spec.Schema, root any, path string, formats strfmt.Registry) *openAPINode {
	n := &openAPINode{schema: schema, path: path, root: root, formats: formats}
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
	given := schema
	// Without additionalProperties' schema (structural schemas never have
	// it beside properties) and patternProperties, the object validator
	// reads the properties only to recurse into them.
	if len(schema.Properties) > 0 && len(schema.PatternProperties) == 0 &&
		(schema.AdditionalProperties == nil || (schema.AdditionalProperties.Allows && schema.AdditionalProperties.Schema == nil)) {
		stripped := *schema
		stripped.Properties = nil
		given, n.ownProperties = &stripped, true
	}
	n.v = validate.NewSchemaValidator(given, root, path, formats, opts...)
	return n
}

// Validate implements validate.ValueValidator: kube-openapi's validators
// of the node, then (ownProperties) the properties the object has, as
// kube-openapi's object validator would.
func (n *openAPINode) Validate(data any) *validate.Result {
	res := n.v.Validate(data)
	if !n.ownProperties {
		return res
	}
	obj, ok := data.(map[string]any)
	if !ok {
		return res // the object validator does not apply either
	}
	for name, value := range obj {
		if _, declared := n.schema.Properties[name]; declared {
			res.Merge(n.property(name).Validate(value))
		}
	}
	return res
}

// SetPath implements validate.ValueValidator; validation never calls it
// (and a kept validator's path must not change).
func (n *openAPINode) SetPath(string) {}

// Applies implements validate.ValueValidator, as a SchemaValidator's.
func (n *openAPINode) Applies(source any, kind reflect.Kind) bool { return n.v.Applies(source, kind) }

// property returns the kept validator of a declared property, at the path
// kube-openapi gives it.
func (n *openAPINode) property(name string) *openAPINode {
	if c, ok := n.fields.Load(name); ok {
		return c.(*openAPINode)
	}
	path := name
	if n.path != "" {
		path = n.path + "." + name
	}
	schema := n.schema.Properties[name]
	c, _ := n.fields.LoadOrStore(name, newOpenAPINode(&schema, n.root, path, n.formats))
	return c.(*openAPINode)
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
		return c.(*openAPINode)
	}
	c, _ := n.fields.LoadOrStore(field, newOpenAPINode(schema, root, path, formats))
	return c.(*openAPINode)
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
		return c.(*openAPINode)
	}
	c, _ := n.items.LoadOrStore(i, newOpenAPINode(schema, root, path, formats))
	return c.(*openAPINode)
}
