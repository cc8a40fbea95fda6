package flux

import (
	"errors"
	"fmt"
	"hash/adler32"
	"maps"
	"strings"
	"text/template"
	"unicode"

	sprig "github.com/go-task/slim-sprig/v3"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/slugify"
)

// flux-operator renders a ResourceSet's templates with text/template,
// delimiters << and >>, slim-sprig's hermetic functions (no env, no
// network, no clock, no randomness), slugify (gosimple/slug, 63
// characters, smart truncation), inputs (the input set), toYaml and
// mustToYaml, and missingkey=error (internal/builder/resourceset.go, v0.x,
// AGPL: re-implemented after it, not imported). An input set is combined
// from the inline inputs and the ResourceSetInputProviders
// (internal/inputs: Flatten concatenates, Permute takes the cartesian
// product keyed by each provider's normalized name).

// templateBudget caps what one template may produce: a repository is
// untrusted input, and a template loop can write without end.
const templateBudget = manifest.DefaultMaxFileBytes

// maxListItems bounds the lists until, untilStep and seq may build, and
// maxRepeat what repeat may: sprig allocates them whole.
const (
	maxListItems = 100_000
	maxRepeat    = 1 << 20
)

var errTemplateBudget = fmt.Errorf("the template writes more than %d MiB; routeguard stops it there", templateBudget>>20)

// templateFuncs are flux-operator's template functions, with sprig's list
// and repeat builders bounded.
func templateFuncs(input map[string]any) template.FuncMap {
	m := sprig.HermeticTxtFuncMap()
	until, untilStep, seq, repeat := m["until"].(func(int) []int), m["untilStep"].(func(int, int, int) []int), m["seq"].(func(...int) string), m["repeat"].(func(int, string) string)
	m["until"] = func(n int) ([]int, error) {
		if n > maxListItems || n < -maxListItems {
			return nil, fmt.Errorf("until %d: more than %d items", n, maxListItems)
		}
		return until(n), nil
	}
	m["untilStep"] = func(start, stop, step int) ([]int, error) {
		if step != 0 && (stop-start)/step > maxListItems {
			return nil, fmt.Errorf("untilStep %d %d %d: more than %d items", start, stop, step, maxListItems)
		}
		return untilStep(start, stop, step), nil
	}
	m["seq"] = func(params ...int) (string, error) {
		for _, p := range params {
			if p > maxListItems || p < -maxListItems {
				return "", fmt.Errorf("seq: more than %d items", maxListItems)
			}
		}
		return seq(params...), nil
	}
	m["repeat"] = func(count int, s string) (string, error) {
		if count*len(s) > maxRepeat {
			return "", fmt.Errorf("repeat %d: more than %d bytes", count, maxRepeat)
		}
		return repeat(count, s), nil
	}
	m["slugify"] = func(s string) string { return slugify.Make(s, 63, true) }
	m["inputs"] = func() any { return input }
	m["toYaml"] = func(v any) string {
		b, err := yaml.Marshal(v)
		if err != nil {
			return ""
		}
		return string(b)
	}
	m["mustToYaml"] = func(v any) (string, error) {
		b, err := yaml.Marshal(v)
		if err != nil {
			return "", err
		}
		return string(b), nil
	}
	return template.FuncMap(m)
}

// execTemplate renders one template with one input set (nil: no inputs).
func execTemplate(text string, input map[string]any) ([]byte, error) {
	tp, err := template.New("resourceset").Delims("<<", ">>").Funcs(templateFuncs(input)).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("failed to parse template: %w", err)
	}
	w := &budgetWriter{left: templateBudget}
	if err := tp.Execute(w, nil); err != nil {
		if errors.Is(err, errTemplateBudget) {
			return nil, errTemplateBudget
		}
		return nil, fmt.Errorf("failed to execute template: %w", err)
	}
	return []byte(w.b.String()), nil
}

type budgetWriter struct {
	b    strings.Builder
	left int
}

func (w *budgetWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		return 0, errTemplateBudget
	}
	w.left -= len(p)
	return w.b.Write(p)
}

// inputProvider is one source of input sets: the ResourceSet itself (its
// inline inputs) or a ResourceSetInputProvider.
type inputProvider struct {
	kind, name, namespace string
	inputs                []map[string]any
}

// withProvider annotates each input set with its provider, as
// flux-operator's getFromProvider does.
func (p inputProvider) withProvider() []map[string]any {
	out := make([]map[string]any, len(p.inputs))
	for i, in := range p.inputs {
		c := maps.Clone(in)
		if c == nil {
			c = map[string]any{}
		}
		c["provider"] = map[string]any{"apiVersion": ControlPlaneGroup + "/v1", "kind": p.kind, "name": p.name, "namespace": p.namespace}
		out[i] = c
	}
	return out
}

// combineInputs combines the providers' input sets by strategy (Flatten,
// Permute), as flux-operator's inputs.Combine does.
func combineInputs(strategy string, includeEmpty bool, providers []inputProvider) ([]map[string]any, error) {
	switch strategy {
	case "", "Flatten":
		var out []map[string]any
		for _, p := range providers {
			out = append(out, p.withProvider()...)
		}
		return out, nil
	case "Permute":
		return permute(includeEmpty, providers)
	}
	return nil, fmt.Errorf("unknown input strategy: '%s'", strategy)
}

const maxPermutations = 10000

// permute is flux-operator's Permuter: every combination of one input set
// per provider, each provider's set under its normalized name, with an id
// made of the chosen indexes.
func permute(includeEmpty bool, providers []inputProvider) ([]map[string]any, error) {
	type scoped struct {
		key  string
		sets []map[string]any
	}
	var all []scoped
	expected := uint64(0)
	for _, p := range providers {
		sets := p.withProvider()
		if !includeEmpty && len(sets) == 0 {
			continue
		}
		if len(all) == 0 {
			expected = uint64(len(sets))
		} else {
			expected *= uint64(len(sets))
		}
		if expected > maxPermutations {
			return nil, fmt.Errorf("adding provider '%s' with %d inputs would exceed the maximum allowed permutations. max: %d, got: %d", p.name, len(sets), maxPermutations, expected)
		}
		key := normalizeKey(p.name)
		if key == "" {
			return nil, fmt.Errorf("normalized provider name is empty: '%s'", p.name)
		}
		all = append(all, scoped{key: key, sets: sets})
	}
	if len(all) == 0 {
		return nil, nil
	}
	for _, s := range all {
		if len(s.sets) == 0 {
			return nil, nil
		}
	}
	var out []map[string]any
	idx := make([]int, len(all))
	for {
		perm := map[string]any{}
		var id []string
		for i, s := range all {
			perm[s.key] = s.sets[idx[i]]
			id = append(id, fmt.Sprintf("%s=%d", s.key, idx[i]))
		}
		perm["id"] = inputID(strings.Join(id, "/"))
		out = append(out, perm)
		i := len(all) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(all[i].sets) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return out, nil
		}
	}
}

// inputID is flux-operator's inputs.ID: the Adler-32 checksum, in decimal.
func inputID(s string) string { return fmt.Sprint(adler32.Checksum([]byte(s))) }

// normalizeKey is flux-operator's NormalizeKeyForTemplate: lower case,
// spaces and punctuation to '_', other characters dropped, empty words
// removed.
func normalizeKey(key string) string {
	key = strings.Map(func(r rune) rune {
		r = unicode.ToLower(r)
		if unicode.IsSpace(r) || unicode.IsPunct(r) {
			return '_'
		}
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			return r
		}
		return -1
	}, key)
	var words []string
	for _, w := range strings.Split(key, "_") {
		if w != "" {
			words = append(words, w)
		}
	}
	return strings.Join(words, "_")
}
