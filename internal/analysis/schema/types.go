package schema

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	sjson "sigs.k8s.io/json"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Types decodes objects of the kinds routeguard checks into their Go types
// strictly, as the API server does, and reports fields of the wrong type
// (RG0002) and unknown fields (RG0003).
type Types struct{}

// Metadata implements analysis.Analyzer.
func (Types) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "schema.Types",
		Description: "Checks that routing objects, Services and workloads decode as their kind: no field of the wrong type, no unknown field.",
		Inputs:      inputs(),
	}
}

// Analyze implements analysis.Analyzer.
// Decoding is the costliest check, so objects are spread over GOMAXPROCS
// workers; findings are sorted by the runner.
func (Types) Analyze(ctx context.Context, c *analysis.Context) error {
	objs := c.Objects().Objects()
	workers := min(runtime.GOMAXPROCS(0), 1+len(objs)/256)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(objs); i += workers {
				if ctx.Err() != nil {
					return
				}
				o := objs[i]
				if _, encrypted := o.Body["sops"]; encrypted {
					// A SOPS-encrypted manifest: Flux decrypts it before
					// applying (the sops key goes, values become plain), so
					// its ciphertext says nothing about what is applied.
					continue
				}
				if newT, ok := typed[typeKey{o.APIVersion, o.Kind}]; ok {
					check(c, o, newT())
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

func check(c *analysis.Context, o *manifest.Object, into any) {
	data, err := json.Marshal(o.Body)
	if err != nil {
		c.Reportf(o, analysis.CodeMalformed, "the object cannot be encoded as JSON (%v); fix the value", err)
		return
	}
	strict, err := sjson.UnmarshalStrict(data, into)
	if err != nil {
		// JSON decoding reports only the first type error; decode each
		// field on its own to name them all.
		for _, e := range fieldErrors(o, into) {
			c.Reportf(o, analysis.CodeMalformed, "%s; the API server rejects this %s; fix the field's type", describeTypeError(e), o.Kind)
		}
		return
	}
	for _, e := range strict {
		msg := e.Error()
		if m := unknownFieldRE.FindStringSubmatch(msg); m != nil {
			c.Reportf(o, analysis.CodeUnknownField,
				"%s is not a field of %s %s (a typo or a wrong indentation?); kubectl and Argo CD reject it with strict validation; remove or correct it",
				m[1], o.APIVersion, o.Kind)
			continue
		}
		if m := duplicateFieldRE.FindStringSubmatch(msg); m != nil {
			c.Reportf(o, analysis.CodeMalformed, "field %s is set twice; remove one", m[1])
			continue
		}
		c.Reportf(o, analysis.CodeMalformed, "%s; fix the object", msg)
	}
}

var (
	unknownFieldRE   = regexp.MustCompile(`unknown field "([^"]*)"`)
	duplicateFieldRE = regexp.MustCompile(`duplicate field "([^"]*)"`)
	typeErrorRE      = regexp.MustCompile(`cannot unmarshal (\w+) into Go (?:struct field [A-Za-z0-9_]+\.(\S+)|value) of type (\S+)`)
)

// describeTypeError turns a JSON type error into "spec.rules: a string
// where a list belongs (HTTPRouteRule)".
func describeTypeError(err error) string {
	m := typeErrorRE.FindStringSubmatch(err.Error())
	if m == nil {
		return strings.TrimPrefix(err.Error(), "json: ")
	}
	got, path, want := m[1], cleanPath(m[2]), m[3]
	if path == "" {
		path = "the object"
	}
	return path + ": " + article(jsonKind(got)) + " where " + goKind(want) + " belongs"
}

// cleanPath drops the embedded Go struct names (CommonRouteSpec) from a path.
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
	case t == "string" || stringTypes[elem]:
		return "a string"
	case elem == "PortNumber" || elem == "Weight":
		return "an integer"
	case t == "bool":
		return "a boolean"
	}
	return "a value of type " + elem
}

// fieldErrors decodes each top-level field, and each field of spec, alone
// into a fresh value of into's type and returns the type errors found.
func fieldErrors(o *manifest.Object, into any) []error {
	fresh := func() any { return reflect.New(reflect.TypeOf(into).Elem()).Interface() }
	try := func(body map[string]any) error {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		_, err = sjson.UnmarshalStrict(data, fresh())
		return err
	}
	var errs []error
	keys := slices.Sorted(maps.Keys(o.Body))
	for _, k := range keys {
		spec, isMap := o.Body[k].(map[string]any)
		if k != "spec" || !isMap {
			if err := try(map[string]any{k: o.Body[k]}); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		for _, sk := range slices.Sorted(maps.Keys(spec)) {
			if err := try(map[string]any{"spec": map[string]any{sk: spec[sk]}}); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) == 0 { // should not happen; keep the whole object's error
		errs = append(errs, try(o.Body))
	}
	return errs
}

// stringTypes are named string types of the Gateway API and core types
// that appear in type errors.
var stringTypes = map[string]bool{
	"Hostname": true, "PreciseHostname": true, "SectionName": true, "ObjectName": true, "Namespace": true,
	"Kind": true, "Group": true, "GatewayController": true, "HTTPMethod": true, "HTTPHeaderName": true,
	"HeaderName": true, "AnnotationKey": true, "AnnotationValue": true, "ProtocolType": true,
	"PathMatchType": true, "TLSModeType": true, "FromNamespaces": true, "Protocol": true,
	"ServiceType": true, "PathType": true, "Quantity": true,
}
