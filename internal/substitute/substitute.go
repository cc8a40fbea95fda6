package substitute

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resource"

	"github.com/routeguard/routeguard/internal/manifest"
)

// Options control one substitution pass.
type Options struct {
	// Strict makes a variable that is neither set nor given a default an
	// error, as kustomize-controller does with the StrictPostBuildSubstitutions
	// feature gate (on by default since Flux 2.9).
	Strict bool
	// Origin names what declared the variables in error messages, e.g.
	// "Kustomization flux-system/apps (clusters/prod/apps.yaml:1)".
	Origin string
}

// Error is a substitution failure of one object. Its message names the
// object, where it came from and what to do; Secret values never appear in it.
type Error struct {
	Object *manifest.Object
	Origin string
	Err    error
	// Line, when set, is the line of the failing variable in
	// Object.Source.File (callers that can read the file fill it in).
	Line int
	// Strictness, when set, says why a strict-mode error is strict (the
	// Flux version it follows), in the message.
	Strictness string
}

// Variable returns the variable a strict-mode error is about ("" for other
// errors).
func (e *Error) Variable() string {
	const marker = `variable not set (strict mode): "`
	msg := e.Err.Error()
	i := strings.Index(msg, marker)
	if i < 0 {
		return ""
	}
	rest := msg[i+len(marker):]
	if j := strings.IndexByte(rest, '"'); j >= 0 {
		return rest[:j]
	}
	return ""
}

// VariableLine returns the 1-based line of the first use of variable in
// data at or after line from, within the same YAML document (0 when none).
func VariableLine(data []byte, from int, variable string) int {
	if variable == "" || from < 1 {
		return 0
	}
	lines := strings.Split(string(data), "\n")
	for i := from - 1; i < len(lines); i++ {
		if i > from-1 && strings.HasPrefix(lines[i], "---") {
			break
		}
		for _, form := range []string{"${" + variable + "}", "${" + variable + ":", "${" + variable + "^", "${" + variable + ",",
			"${" + variable + "#", "${" + variable + "%", "${" + variable + "/", "${#" + variable + "}"} {
			if strings.Contains(lines[i], form) {
				return i + 1
			}
		}
	}
	return 0
}

func (e *Error) Error() string {
	var b strings.Builder
	src := e.Object.Source
	if e.Line > 0 {
		src.Line = e.Line
	}
	fmt.Fprintf(&b, "%s: %s: postBuild substitution", src, e.Object)
	if e.Origin != "" {
		fmt.Fprintf(&b, " (variables of %s)", e.Origin)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	msg := e.Err.Error()
	switch {
	case strings.Contains(msg, "variable not set (strict mode)"):
		b.WriteString("; set the variable in spec.postBuild.substitute or in a substituteFrom ConfigMap/Secret, give it a default (${name:=value}), or escape it as $${name}")
		if e.Strictness != "" {
			b.WriteString("; " + e.Strictness)
		}
	case strings.Contains(msg, "var name is invalid"):
		b.WriteString("; variable names must be letters, digits and underscores, not starting with a digit")
	case strings.Contains(msg, "variable substitution failed"):
		b.WriteString("; fix the ${...} expression, or write $${...} for a literal ${...}")
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Kustomization returns a minimal Flux Kustomization body whose
// spec.postBuild.substitute holds vars: the way to substitute variables given
// on a command line (routeguard postrender) through the same Flux entry point.
func Kustomization(namespace string, vars map[string]string) map[string]any {
	sub := make(map[string]any, len(vars))
	for k, v := range vars {
		sub[k] = v
	}
	return map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1",
		"kind":       "Kustomization",
		"metadata":   map[string]any{"name": "routeguard", "namespace": namespace},
		"spec":       map[string]any{"postBuild": map[string]any{"substitute": sub}},
	}
}

// Apply runs Flux's postBuild substitution on every object of set, as
// kustomize-controller does after `kustomize build`: nothing happens when
// the Kustomization has no spec.postBuild; objects labelled or annotated
// kustomize.toolkit.fluxcd.io/substitute: disabled are kept as they are.
// ks is the Flux Kustomization body; src resolves its substituteFrom
// references. The returned set holds new objects with the old sources; set
// is not modified. The first failing object stops the pass.
func Apply(ctx context.Context, set *manifest.Set, ks map[string]any, src *Sources, opts Options) (*manifest.Set, error) {
	spec, _ := ks["spec"].(map[string]any)
	if _, ok := spec["postBuild"]; !ok {
		return set, nil
	}
	strategy, _, _ := unstructured.NestedString(ks, "spec", "postBuild", "substituteStrategy")
	u := unstructured.Unstructured{Object: ks}
	var secretValues []string
	ctx = fluxkustomize.ContextWithSecretVarsCollector(ctx, func(vars map[string]string) {
		for _, v := range vars {
			if v != "" {
				secretValues = append(secretValues, v)
			}
		}
	})
	// Longest first, so that a value containing another is masked whole.
	mask := func(err error) error {
		sort.Slice(secretValues, func(i, j int) bool { return len(secretValues[i]) > len(secretValues[j]) })
		msg := err.Error()
		for _, v := range secretValues {
			msg = strings.ReplaceAll(msg, v, "*****")
		}
		if msg == err.Error() {
			return err
		}
		return errors.New(msg)
	}
	factory := provider.NewDefaultDepProvider().GetResourceFactory()
	c := sourcesClient{src: src}
	out := manifest.NewSet()
	for _, o := range set.Objects() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res, err := factory.FromMap(o.Body)
		if err != nil {
			return nil, &Error{Object: o, Origin: opts.Origin, Err: err}
		}
		got, err := substituteOne(ctx, c, u, res, opts.Strict, strategy == "Always")
		if err != nil {
			return nil, &Error{Object: o, Origin: opts.Origin, Err: mask(err)}
		}
		n := o
		if got != nil {
			body, err := got.Map()
			if err != nil {
				return nil, &Error{Object: o, Origin: opts.Origin, Err: err}
			}
			if n, err = manifest.FromBody(body, o.Source); err != nil {
				return nil, &Error{Object: o, Origin: opts.Origin, Err: mask(err)}
			}
		}
		if err := out.Add(n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// substituteOne calls Flux's entry point, turning a panic in a dependency
// into an error (kustomize-controller recovers the same way around builds).
func substituteOne(ctx context.Context, c sourcesClient, u unstructured.Unstructured, res *resource.Resource, strict, always bool) (out *resource.Resource, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("substitution panicked: %v", r)
		}
	}()
	return fluxkustomize.SubstituteVariables(ctx, c, u, res,
		fluxkustomize.SubstituteWithStrict(strict),
		fluxkustomize.SubstituteWithAlways(always))
}
