package apiserver

import (
	"fmt"
	"regexp"
	"strings"
)

var typeErrorRE = regexp.MustCompile(`cannot unmarshal (\w+) into Go (?:struct field [A-Za-z0-9_]+\.(\S+)|value) of type (\S+)`)

// decodeViolation turns the API server's decoding error for a value of the
// wrong type ("json: cannot unmarshal string into Go struct field
// ServicePort.spec.ports.port of type int32") into a violation at that
// field: "spec.ports.port: a string where an integer belongs". The JSON
// decoder stops at the first such error, as the API server does.
func decodeViolation(err error) Violation {
	m := typeErrorRE.FindStringSubmatch(err.Error())
	if m == nil {
		return Violation{Class: Builtin, Message: "the API server cannot decode the object: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	return Violation{Class: Builtin, Field: cleanPath(m[2]),
		Message: fmt.Sprintf("Invalid value: %s where %s belongs (the API server cannot decode the object)", article(jsonKind(m[1])), goKind(m[3]))}
}

// cleanPath drops the embedded Go struct names from a decoder path.
func cleanPath(p string) string {
	var out []string
	for _, s := range strings.Split(p, ".") {
		if s != "" && s[0] >= 'A' && s[0] <= 'Z' {
			continue
		}
		out = append(out, s)
	}
	return strings.Join(out, ".")
}

func jsonKind(k string) string {
	switch k {
	case "array":
		return "list"
	case "object":
		return "map"
	case "bool":
		return "boolean"
	}
	return k
}

func article(s string) string {
	if s != "" && strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

func goKind(t string) string {
	elem := t[strings.LastIndexByte(t, '.')+1:]
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list (of " + strings.TrimPrefix(elem, "[]") + ")"
	case strings.HasPrefix(t, "map["):
		return "a map"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool":
		return "a boolean"
	case t == "string" || elem == "Protocol" || elem == "ServiceType" || elem == "PathType" || elem == "Quantity":
		return "a string"
	case elem == "IntOrString":
		return "an integer or a string"
	}
	return "a value of type " + elem
}
