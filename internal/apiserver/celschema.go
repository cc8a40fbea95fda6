package apiserver

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apiserver/pkg/cel/common"
)

// The CRDs' CEL rules see an object through apiextensions' schema adaptor
// (cel/model.Structural), whose Properties() builds a new map of new
// schema values on every call, and k8s.io/apiserver's unstructured values
// call it up to three times per field a rule reads. On the synthetic
// repository of 10,000 objects that was more than half of the bytes the
// CEL rules allocated (56% of an HTTPRoute's validation), most of it paid
// again by the collector.
//
// cachedSchema is the same adaptor with its children built once per
// compiled CRD version: the schema does not change once compiled, so
// what the rules see is the same, value for value. The validator's tree
// gets it through the activation each of its nodes builds (the only
// place the adaptor is made), which apiextensions keeps in an unexported
// field: installCachedSchemas replaces that function with one that
// resolves `self` through the cached adaptor and everything else through
// the original. If a later apiextensions renames the field or changes its
// type, nothing is installed and validation runs as upstream ships it
// (TestCachedSchemaInstalled says so).

// activationFactory is the type of cel.Validator's celActivationFactory.
type activationFactory = func(sts *structuralschema.Structural, obj, oldObj any) (interpreter.Activation, interpreter.Activation)

// installCachedSchemas gives every node of v's tree the cached adaptor and
// reports whether it could. Call it once, before v validates anything.
func installCachedSchemas(v *cel.Validator) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v).Elem()
	f := rv.FieldByName("celActivationFactory")
	root := rv.FieldByName("isResourceRoot")
	if !f.IsValid() || f.Type() != reflect.TypeFor[activationFactory]() || !root.IsValid() || root.Kind() != reflect.Bool || v.Schema == nil {
		return false
	}
	factory := (*activationFactory)(unsafe.Pointer(f.UnsafeAddr()))
	if *factory == nil {
		return false
	}
	// What validateExpressions passes the factory: the node's schema, with
	// apiVersion, kind and metadata.name/generateName at a resource root.
	sts := v.Schema
	if root.Bool() {
		sts = model.WithTypeAndObjectMeta(sts)
	}
	*factory = cachedActivation(*factory, newCachedSchema(sts))

	ok := installCachedSchemas(v.Items) && installCachedSchemas(v.AdditionalProperties)
	for _, a := range v.AllOfValidators {
		ok = installCachedSchemas(a) && ok
	}
	for k, p := range v.Properties {
		ok = installCachedSchemas(&p) && ok
		v.Properties[k] = p
	}
	return ok
}

// cachedActivation wraps the original factory: oldSelf (and whether a rule
// may name it) stay the original's, self is obj through the cached
// adaptor. The original is called without obj, which it would only
// convert into a self that is not used.
func cachedActivation(orig activationFactory, s *cachedSchema) activationFactory {
	return func(_ *structuralschema.Structural, obj, oldObj any) (interpreter.Activation, interpreter.Activation) {
		a, optional := orig(s.Structural.Structural, nil, oldObj)
		self := common.UnstructuredToVal(obj, s)
		withSelf := &selfActivation{self: self, inner: a}
		if optional == a {
			return withSelf, withSelf
		}
		return withSelf, &selfActivation{self: self, inner: optional}
	}
}

// selfActivation resolves self to its value and every other name as inner.
type selfActivation struct {
	self  ref.Val
	inner interpreter.Activation
}

func (a *selfActivation) ResolveName(name string) (any, bool) {
	if name == cel.ScopedVarName {
		return a.self, true
	}
	return a.inner.ResolveName(name)
}

func (a *selfActivation) Parent() interpreter.Activation { return a.inner.Parent() }

// cachedSchema is model.Structural whose Properties, Items,
// AdditionalProperties and WithTypeAndObjectMeta are built once. It is
// safe for concurrent use.
type cachedSchema struct {
	*model.Structural

	propsOnce, itemsOnce, addOnce, metaOnce sync.Once
	props                                   map[string]common.Schema
	items                                   common.Schema
	add                                     common.SchemaOrBool
	meta                                    common.Schema
}

var (
	_ common.Schema       = (*cachedSchema)(nil)
	_ common.SchemaOrBool = (*cachedSchemaOrBool)(nil)
)

func newCachedSchema(s *structuralschema.Structural) *cachedSchema {
	return &cachedSchema{Structural: &model.Structural{Structural: s}}
}

func (s *cachedSchema) Properties() map[string]common.Schema {
	st := s.Structural.Structural
	if st.Properties == nil {
		return nil
	}
	s.propsOnce.Do(func() {
		m := make(map[string]common.Schema, len(st.Properties))
		for n, p := range st.Properties {
			m[n] = newCachedSchema(&p)
		}
		s.props = m
	})
	return s.props
}

func (s *cachedSchema) Items() common.Schema {
	st := s.Structural.Structural
	if st.Items == nil {
		return nil
	}
	s.itemsOnce.Do(func() { s.items = newCachedSchema(st.Items) })
	return s.items
}

func (s *cachedSchema) AdditionalProperties() common.SchemaOrBool {
	st := s.Structural.Structural
	if st.AdditionalProperties == nil {
		return nil
	}
	s.addOnce.Do(func() {
		sb := &cachedSchemaOrBool{allows: st.AdditionalProperties.Bool}
		if st.AdditionalProperties.Structural != nil {
			sb.schema = newCachedSchema(st.AdditionalProperties.Structural)
		}
		s.add = sb
	})
	return s.add
}

func (s *cachedSchema) WithTypeAndObjectMeta() common.Schema {
	s.metaOnce.Do(func() {
		st := s.Structural.Structural
		if m := model.WithTypeAndObjectMeta(st); m == st {
			s.meta = s
		} else {
			s.meta = newCachedSchema(m)
		}
	})
	return s.meta
}

// cachedSchemaOrBool is model.StructuralOrBool with its schema cached.
type cachedSchemaOrBool struct {
	schema *cachedSchema // nil: a boolean
	allows bool
}

func (sb *cachedSchemaOrBool) Schema() common.Schema {
	if sb.schema == nil {
		return nil
	}
	return sb.schema
}

func (sb *cachedSchemaOrBool) Allows() bool { return sb.allows }
