package appset

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"text/template"
	"unicode/utf8"

	"github.com/Masterminds/sprig/v3"
	"github.com/valyala/fasttemplate"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/slugify"
	"github.com/routeguard/routeguard/internal/templatelimit"
)

// funcMap is Argo CD's template function map: sprig's generic functions
// without env, expandenv and getHostByName, plus its own. baseTemplates
// adds the bounded functions of internal/templatelimit over it.
var funcMap = func() template.FuncMap {
	m := sprig.GenericFuncMap()
	delete(m, "env")
	delete(m, "expandenv")
	delete(m, "getHostByName")
	m["normalize"] = SanitizeName
	m["slugify"] = slugifyName
	m["toYaml"] = toYAML
	m["fromYaml"] = fromYAML
	m["fromYamlArray"] = fromYAMLArray
	return template.FuncMap(m)
}()

// baseTemplates holds one parsed base template per output limit (one
// limit in practice: --max-file-size).
var baseTemplates sync.Map // int64 -> *template.Template

func baseTemplate(max int64) *template.Template {
	if t, ok := baseTemplates.Load(max); ok {
		return t.(*template.Template)
	}
	t, _ := baseTemplates.LoadOrStore(max, template.New("base").Funcs(funcMap).Funcs(templatelimit.Funcs(max, templatelimit.Seeded)))
	return t.(*template.Template)
}

var isTemplated = regexp.MustCompile(".*{{.*}}.*")

// replace renders one string with params: a Go template (text/template
// with the function map and options such as missingkey=error), or
// fasttemplate, where {{ key }} is replaced by a string parameter and any
// other tag is left as it was. What a Go template makes is bounded by
// x.max (internal/templatelimit).
func (x *expander) replace(tmpl string, params map[string]any, options []string) (string, error) {
	if x.spec.GoTemplate {
		t, err := baseTemplate(x.max).Clone()
		if err != nil {
			return "", err
		}
		for _, o := range options {
			t = t.Option(o)
		}
		parsed, err := t.Parse(tmpl)
		if err != nil {
			return "", fmt.Errorf("failed to parse template %s: %w", shorten(tmpl), err)
		}
		buf := &templatelimit.Writer{Max: x.max}
		if err := parsed.Execute(buf, params); err != nil {
			return "", fmt.Errorf("failed to execute go template %s: %w", shorten(tmpl), err)
		}
		return buf.String(), nil
	}
	if !isTemplated.MatchString(tmpl) {
		return tmpl, nil
	}
	ft, err := fasttemplate.NewTemplate(tmpl, "{{", "}}")
	if err != nil {
		return "", fmt.Errorf("invalid template: %w", err)
	}
	return ft.ExecuteFuncString(func(w io.Writer, tag string) (int, error) {
		trimmed := strings.TrimSpace(tag)
		replacement, ok := params[trimmed].(string)
		if trimmed == "" || !ok {
			return fmt.Fprintf(w, "{{%s}}", tag)
		}
		return w.Write([]byte(replacement))
	}), nil
}

// skipFunc handles the entry key of the map parent (found under
// parentKey) itself; done reports that it did.
type skipFunc func(parentKey string, parent map[string]any, key string) (v any, done bool, err error)

// replaceDeep renders every string and every map key of v (a decoded YAML
// value), as Argo CD renders every string field of its typed template.
func (x *expander) replaceDeep(v any, params map[string]any, options []string, skip skipFunc) (any, error) {
	return x.replaceDeepUnder("", v, params, options, skip)
}

func (x *expander) replaceDeepUnder(under string, v any, params map[string]any, options []string, skip skipFunc) (any, error) {
	switch t := v.(type) {
	case string:
		return x.replace(t, params, options)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			r, err := x.replaceDeepUnder(under, e, params, options, skip)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if skip != nil {
				if r, done, err := skip(under, t, k); done {
					if err != nil {
						return nil, err
					}
					out[k] = r
					continue
				}
			}
			if e == nil {
				continue // Argo CD drops nil map values of its typed maps
			}
			r, err := x.replaceDeepUnder(k, e, params, options, skip)
			if err != nil {
				return nil, err
			}
			key, err := x.replace(k, params, options)
			if err != nil {
				return nil, err
			}
			out[key] = r
		}
		return out, nil
	}
	return v, nil
}

// SanitizeName is Argo CD's normalize: lower case, [^-a-z0-9.] to "-", at
// most 253 characters, no leading or trailing "-" or ".".
func SanitizeName(name string) string {
	name = strings.ToLower(name)
	name = invalidDNSNameChars.ReplaceAllString(name, "-")
	if len(name) > 253 {
		name = name[:253]
	}
	return strings.Trim(name, "-.")
}

var invalidDNSNameChars = regexp.MustCompile("[^-a-z0-9.]")

// slugifyName is Argo CD's slugify: [maxSize int], [smartTruncate bool],
// name (the last argument).
func slugifyName(args ...any) string {
	maxSize, smart, name := 50, true, ""
	for i, a := range args {
		switch i {
		case len(args) - 1:
			name, _ = a.(string)
		case 0:
			maxSize, _ = a.(int)
		case 1:
			smart, _ = a.(bool)
		}
	}
	return slugify.Make(SanitizeName(name), maxSize, smart)
}

func toYAML(v any) (string, error) {
	data, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(data), "\n"), nil
}

func fromYAML(s string) (map[string]any, error) {
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		return nil, err
	}
	return m, nil
}

func fromYAMLArray(s string) ([]any, error) {
	a := []any{}
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		return nil, err
	}
	return a, nil
}

// shorten keeps an error about a template readable when the template is
// long (it is repeated in the message).
func shorten(tmpl string) string {
	const keep = 200
	if len(tmpl) <= keep {
		return tmpl
	}
	cut := keep
	for cut > 0 && !utf8.RuneStart(tmpl[cut]) {
		cut--
	}
	return tmpl[:cut] + fmt.Sprintf("… (%d more bytes)", len(tmpl)-cut)
}
