package apiserver

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Class says which part of the API server's validation a violation comes
// from; each class is its own finding code.
type Class int

const (
	// UnknownField: a field the schema does not define, which the API
	// server prunes, and refuses under strict field validation (kubectl's
	// and Argo CD's default).
	UnknownField Class = iota + 1
	// Schema: the OpenAPI schema of a CRD (type, enum, pattern, format,
	// bounds, required, list types, embedded metadata, metadata.name).
	Schema
	// Rule: an x-kubernetes-validations CEL rule of a CRD.
	Rule
	// Builtin: the validation of a built-in kind (k8s.io/kubernetes).
	Builtin
	// Uncheckable: routeguard cannot check this part (a rule that does not
	// compile with routeguard's CEL environment, a version whose schema is
	// broken); never an error.
	Uncheckable
)

// Violation is one reason the API server would refuse an object.
type Violation struct {
	Class Class
	// Field is the path as the API server writes it:
	// "spec.rules[0].matches[0].path.value", map keys in brackets.
	Field string
	// Message is the API server's message for the field, without the path:
	// `Invalid value: "foo": value must be an absolute path ...`.
	Message string
	// Rule is the CEL rule that failed (Class Rule).
	Rule string
	// Value is the offending value when it is a string ("" otherwise).
	Value string
	// Missing: a required field is absent (no value to blame).
	Missing bool
	// Scalar: the offending value is one string, number or boolean (so
	// Value, for a string, is all of it).
	Scalar bool
}

// String renders the violation as the API server does: "path: message".
func (v Violation) String() string {
	if v.Field == "" {
		return v.Message
	}
	return v.Field + ": " + v.Message
}

// fromFieldError converts an API server field error.
func fromFieldError(class Class, e *field.Error) Violation {
	msg := e.ErrorBody()
	v := Violation{Class: class, Field: e.Field, Message: msg, Missing: e.Type == field.ErrorTypeRequired}
	switch b := e.BadValue.(type) {
	case string:
		v.Value, v.Scalar = b, b != ""
	case *string:
		if b != nil {
			v.Value, v.Scalar = *b, *b != ""
		}
	case bool, int, int32, int64, float32, float64, *int32, *int64:
		v.Scalar = true
	}
	return v
}

func fromFieldErrors(class Class, errs field.ErrorList) []Violation {
	out := make([]Violation, 0, len(errs))
	for _, e := range errs {
		out = append(out, fromFieldError(class, e))
	}
	return out
}

// unknownField is the violation for a pruned field, worded as the API
// server's strict decoding error.
func unknownField(path string) Violation {
	return Violation{Class: UnknownField, Field: path, Message: fmt.Sprintf("unknown field %q", path)}
}
