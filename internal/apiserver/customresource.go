package apiserver

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/api/operation"
	metavalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// Result is the outcome of validating one object.
type Result struct {
	Violations []Violation
	// RulesSkipped: the schema errors block the CEL rules, which the API
	// server then does not evaluate either ("some validation rules were not
	// checked because the object was invalid").
	RulesSkipped bool
}

// ValidateCustomResource validates body (a custom resource of version
// version of c) as kube-apiserver does on create: it decodes the object
// (pruning unknown fields, which strict field validation reports, and
// coercing metadata), applies the schema's defaults, drops status when the
// version has a status subresource, then runs the OpenAPI schema, metadata,
// list-type and CEL validation in the API server's order. namespace is
// the namespace the object is created in (the API server fills it in from
// the request when the manifest names none). body is not modified.
func (c *CRD) ValidateCustomResource(ctx context.Context, version, namespace string, body map[string]any) (*Result, error) {
	cv, err := c.compile(version)
	if err != nil {
		return nil, err
	}
	return c.validate(ctx, cv, namespace, body)
}

// validate is ValidateCustomResource with the compiled version.
func (c *CRD) validate(ctx context.Context, cv *compiled, namespace string, body map[string]any) (*Result, error) {
	res := &Result{}
	u, errs, err := c.prepare(ctx, cv, namespace, body, res)
	if err != nil {
		return nil, err
	}
	if u == nil {
		return res, nil
	}
	if cv.rules == nil {
		return res, nil
	}
	if blocking(errs) {
		res.RulesSkipped = true
		return res, nil
	}
	need := newRuleSet(cv.rules.nodes)
	cv.rules.tree.reach(u, need)
	rules := cv.rules.rulesFor(need)
	if rules.validator == nil {
		return res, nil
	}
	celErrs, _ := rules.validator.Validate(ctx, nil, rules.schema, u, nil, celconfig.RuntimeCELCostBudget)
	for _, e := range celErrs {
		v := fromFieldError(Rule, e)
		if isCompileError(e) {
			v.Class = Uncheckable
		}
		res.Violations = append(res.Violations, v)
	}
	return res, nil
}

// prepare decodes, defaults and validates a copy of body up to the CEL
// rules, as the API server does, adding the violations to res. It returns
// the object the rules see and the errors so far; a nil object: the
// validation ends here.
func (c *CRD) prepare(ctx context.Context, cv *compiled, namespace string, body map[string]any, res *Result) (map[string]any, field.ErrorList, error) {
	copied, nulls := copyBody(body)
	u, ok := copied.(map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("object body is not a map")
	}

	// Decoding (customresource_handler.go, unstructuredSchemaCoercer.apply
	// with returnUnknownFieldPaths, as for fieldValidation=Strict).
	kind, apiVersion := u["kind"], u["apiVersion"]
	objectMeta, foundMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u,
		schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		res.Violations = append(res.Violations, Violation{Class: Schema, Field: "metadata",
			Message: fmt.Sprintf("does not decode as ObjectMeta: %v", err)})
		return nil, nil, nil
	}
	if !cv.preserveUnknown {
		unknown = append(unknown, structuralpruning.PruneWithOptions(u, cv.structural, true,
			structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
		if nulls || !cv.elide {
			structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u, cv.structural)
		}
	}
	if cv.embedded || !cv.elide {
		if ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, u, cv.structural, false,
			schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true}); ferr != nil {
			res.Violations = append(res.Violations, fromFieldError(Schema, ferr))
		} else {
			unknown = append(unknown, paths...)
		}
	}
	u["kind"], u["apiVersion"] = kind, apiVersion
	if foundMeta {
		if objectMeta.Namespace == "" && c.NamespaceScoped() {
			objectMeta.Namespace = namespace
		}
		if !c.NamespaceScoped() {
			objectMeta.Namespace = ""
		}
		if err := schemaobjectmeta.SetObjectMeta(u, objectMeta); err != nil {
			return nil, nil, err
		}
	}
	sort.Strings(unknown)
	for _, p := range unknown {
		res.Violations = append(res.Violations, unknownField(p))
	}

	// Defaulting (unstructuredDefaulter), then PrepareForCreate.
	if cv.elide {
		structuraldefaulting.Default(u, cv.defaulting)
	} else {
		structuraldefaulting.Default(u, cv.structural)
	}
	if cv.statusSubresouce {
		delete(u, "status")
	}

	// Validation (customResourceStrategy.Validate).
	var errs field.ErrorList
	if objectMeta == nil {
		objectMeta = &metav1.ObjectMeta{}
	}
	errs = append(errs, metavalidation.ValidateObjectMetaDeclaratively(ctx, operation.Create, objectMeta, nil,
		c.NamespaceScoped(), metavalidation.NameIsDNSSubdomain, field.NewPath("metadata"), false)...)
	// kube-openapi visits properties in map order: its errors are sorted
	// (by path, then message) so that a result, and the first of several
	// ("first:" of the findings of violations not judged), is the same on every run.
	errs = append(errs, sortedErrors(apiservervalidation.ValidateCustomResource(nil, u, cv.schemaValidator))...)
	if cv.embedded || !cv.elide {
		errs = append(errs, schemaobjectmeta.Validate(ctx, nil, u, cv.structural, false)...)
	}
	listSchema := cv.structural
	if cv.elide {
		listSchema = cv.listTypes
	}
	// The list-type walk, too, follows the object's map order: sorted.
	errs = append(errs, sortedErrors(structurallisttype.ValidateListSetsAndMaps(nil, listSchema, u))...)
	res.Violations = append(res.Violations, fromFieldErrors(Schema, errs)...)
	return u, errs, nil
}

// sortedErrors sorts errs by path, then message, in place.
func sortedErrors(errs field.ErrorList) field.ErrorList {
	slices.SortStableFunc(errs, func(a, b *field.Error) int {
		return cmp.Or(cmp.Compare(a.Field, b.Field), cmp.Compare(a.ErrorBody(), b.ErrorBody()))
	})
	return errs
}

// blocking mirrors hasBlockingErr of the API server's custom resource
// strategy: these errors stop the CEL rules from running.
func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong,
			field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

// isCompileError reports the CEL validator's errors for rules it could not
// compile (a rule written for a newer CEL library than routeguard's): the
// API server that accepted the CRD would run them, routeguard cannot.
func isCompileError(e *field.Error) bool {
	return strings.HasPrefix(e.Detail, "rule compile error: ") ||
		strings.HasPrefix(e.Detail, "rule compiler initialization error: ")
}
