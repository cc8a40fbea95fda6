package appset

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"dario.cat/mergo"
	"github.com/jeremywohl/flatten"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/templatelimit"
)

// Cluster is an Argo CD cluster as the cluster generator sees it (a
// cluster Secret's name, server, project, labels and annotations).
type Cluster struct {
	Name        string
	Server      string
	Project     string
	Labels      map[string]string
	Annotations map[string]string
}

// InClusterServer and InClusterName are Argo CD's local cluster.
const (
	InClusterServer = "https://kubernetes.default.svc"
	InClusterName   = "in-cluster"
)

// Repo is this checkout, as the git generator sees a repository.
type Repo interface {
	// IsThis reports whether repoURL is this repository.
	IsThis(repoURL string) bool
	// Directories lists the directories as Argo CD's GetGitDirectories
	// does: relative paths, hidden directories left out, lexical order.
	Directories() ([]string, error)
	// Files returns the files matching a git generator file pattern, by
	// relative path.
	Files(pattern string, newGlobbing bool) (map[string][]byte, error)
}

// Env is what generators may consult.
type Env struct {
	Repo Repo
	// Clusters are the clusters the cluster generator lists; ClustersKnown
	// says they were given (without them a cluster generator cannot be
	// expanded).
	Clusters      []Cluster
	ClustersKnown bool
	// NewGitFileGlobbing is applicationset.enable.new.git.file.globbing.
	NewGitFileGlobbing bool
	// MaxTemplateBytes bounds what one rendered template string holds
	// (internal/templatelimit; 0: templatelimit.DefaultMax).
	MaxTemplateBytes int64
}

// UnsupportedError says that a generator cannot be expanded offline.
type UnsupportedError struct {
	Generator string
	Reason    string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("the %s generator cannot be expanded offline: %s", e.Generator, e.Reason)
}

// Spec is an ApplicationSet's spec, decoded.
type Spec struct {
	GoTemplate        bool             `json:"goTemplate,omitempty"`
	GoTemplateOptions []string         `json:"goTemplateOptions,omitempty"`
	Generators        []map[string]any `json:"generators"`
	Template          map[string]any   `json:"template"`
	TemplatePatch     *string          `json:"templatePatch,omitempty"`
}

// Expand generates the Applications of an ApplicationSet (namespace is
// the ApplicationSet's), as Argo CD's GenerateApplications does: each
// generator's parameter sets rendered into its template (the generator's
// own template merged over spec.template), then templatePatch. The
// Applications are returned as decoded objects, in generator order. An
// error from any generator means no Applications, as in Argo CD.
func Expand(spec Spec, namespace string, env Env) ([]map[string]any, error) {
	x := &expander{spec: spec, env: env, max: env.MaxTemplateBytes}
	if x.max <= 0 {
		x.max = templatelimit.DefaultMax
	}
	var apps []map[string]any
	for i, g := range spec.Generators {
		results, err := x.transform(g, spec.Template, nil)
		if err != nil {
			return nil, fmt.Errorf("generator %d: %w", i+1, err)
		}
		for _, r := range results {
			tmpl := tempApplication(r.template)
			for _, p := range r.params {
				app, err := x.render(tmpl, p)
				if err != nil {
					return nil, fmt.Errorf("generator %d: %w", i+1, err)
				}
				if spec.TemplatePatch != nil {
					if app, err = x.patch(app, p); err != nil {
						return nil, fmt.Errorf("generator %d: %w", i+1, err)
					}
				}
				md, _ := app["metadata"].(map[string]any)
				if md == nil {
					md = map[string]any{}
					app["metadata"] = md
				}
				md["namespace"] = namespace
				app["apiVersion"] = "argoproj.io/v1alpha1"
				app["kind"] = "Application"
				apps = append(apps, app)
			}
		}
	}
	return apps, nil
}

type expander struct {
	spec Spec
	env  Env
	max  int64 // bytes one rendered template string may hold
}

type transformResult struct {
	params   []map[string]any
	template map[string]any
}

// generatorKinds are the generator fields of ApplicationSetGenerator, in
// Argo CD's field order.
var generatorKinds = []string{"list", "clusters", "git", "scmProvider", "clusterDecisionResource", "pullRequest", "matrix", "merge", "plugin"}

// transform is Argo CD's Transform: for each generator kind set in g, its
// template merged over base, its parameter sets (g interpolated with
// genParams first, inside a matrix), filtered by g's selector.
func (x *expander) transform(g map[string]any, base map[string]any, genParams map[string]any) ([]transformResult, error) {
	var sel *selector
	if raw, ok := g["selector"]; ok && raw != nil {
		var err error
		if sel, err = parseSelector(raw); err != nil {
			return nil, fmt.Errorf("error parsing label selector: %w", err)
		}
	}
	for k := range g {
		if k != "selector" && !slices.Contains(generatorKinds, k) {
			return nil, fmt.Errorf("unknown generator %q", k)
		}
	}
	var res []transformResult
	for _, kind := range generatorKinds {
		body, ok := g[kind].(map[string]any)
		if !ok {
			if g[kind] != nil {
				return nil, fmt.Errorf("%s generator: not an object", kind)
			}
			continue
		}
		tmpl, err := mergeTemplate(body["template"], base)
		if err != nil {
			return nil, err
		}
		gen := g
		if len(genParams) != 0 {
			if gen, err = x.interpolate(g, genParams); err != nil {
				return nil, err
			}
			body, _ = gen[kind].(map[string]any)
		}
		params, err := x.generate(kind, body)
		if err != nil {
			return nil, err
		}
		var kept []map[string]any
		for _, p := range params {
			if sel != nil {
				flat, err := flattenParams(p)
				if err != nil {
					return nil, err
				}
				if !sel.matches(flat) {
					continue
				}
			}
			kept = append(kept, p)
		}
		res = append(res, transformResult{params: kept, template: tmpl})
	}
	return res, nil
}

func (x *expander) generate(kind string, body map[string]any) ([]map[string]any, error) {
	switch kind {
	case "list":
		return x.list(body)
	case "git":
		return x.git(body)
	case "clusters":
		return x.clusters(body)
	case "matrix":
		return x.matrix(body)
	case "merge":
		return x.merge(body)
	case "plugin":
		return nil, &UnsupportedError{Generator: kind, Reason: "it calls a plugin service"}
	case "scmProvider", "pullRequest":
		return nil, &UnsupportedError{Generator: kind, Reason: "it asks an SCM provider's API"}
	}
	return nil, &UnsupportedError{Generator: kind, Reason: "it reads a resource in the cluster"}
}

// mergeTemplate is mergo.Merge(generatorTemplate, base): the generator's
// template wins where it sets a field.
func mergeTemplate(genTemplate any, base map[string]any) (map[string]any, error) {
	dst := map[string]any{}
	if m, ok := genTemplate.(map[string]any); ok {
		dst = deepCopy(m).(map[string]any)
	}
	if err := mergo.Merge(&dst, deepCopy(base)); err != nil {
		return nil, fmt.Errorf("merging the generator's template: %w", err)
	}
	return dst, nil
}

// tempApplication is Argo CD's GetTempApplication: the template's
// metadata (name, namespace, labels, annotations, finalizers) and spec.
func tempApplication(tmpl map[string]any) map[string]any {
	app := map[string]any{}
	md := map[string]any{}
	if m, ok := tmpl["metadata"].(map[string]any); ok {
		for _, k := range []string{"name", "namespace", "labels", "annotations", "finalizers"} {
			if v, ok := m[k]; ok && v != nil {
				md[k] = v
			}
		}
	}
	app["metadata"] = md
	if spec, ok := tmpl["spec"]; ok && spec != nil {
		app["spec"] = spec
	}
	return app
}

// render renders the template with one parameter set; an empty set
// leaves it untemplated, as in Argo CD.
func (x *expander) render(tmpl map[string]any, params map[string]any) (map[string]any, error) {
	if len(params) == 0 {
		return deepCopy(tmpl).(map[string]any), nil
	}
	out, err := x.replaceDeep(tmpl, params, x.spec.GoTemplateOptions, nil)
	if err != nil {
		return nil, err
	}
	return out.(map[string]any), nil
}

// patch applies spec.templatePatch, rendered with params, as a merge
// patch (Argo CD's strategic merge patch over the Application type, whose
// fields have no merge keys: maps merge, lists are replaced, null
// deletes).
func (x *expander) patch(app map[string]any, params map[string]any) (map[string]any, error) {
	text, err := x.replace(*x.spec.TemplatePatch, params, x.spec.GoTemplateOptions)
	if err != nil {
		return nil, fmt.Errorf("error replacing values in templatePatch: %w", err)
	}
	var p any
	if err := yaml.Unmarshal([]byte(text), &p); err != nil {
		return nil, fmt.Errorf("invalid templatePatch %q: %w", text, err)
	}
	pm, ok := p.(map[string]any)
	if !ok {
		if p == nil {
			return app, nil
		}
		return nil, fmt.Errorf("invalid templatePatch %q: not an object", text)
	}
	return mergePatch(app, pm), nil
}

func mergePatch(dst, patch map[string]any) map[string]any {
	for k, v := range patch {
		if v == nil {
			delete(dst, k)
			continue
		}
		pm, ok := v.(map[string]any)
		dm, dok := dst[k].(map[string]any)
		if ok && dok {
			dst[k] = mergePatch(dm, pm)
			continue
		}
		if ok {
			dst[k] = mergePatch(map[string]any{}, pm)
			continue
		}
		dst[k] = v
	}
	return dst
}

// interpolate is Argo CD's RenderGeneratorParams: every string of the
// generator rendered with the first matrix child's parameters; the values
// maps of the git and cluster generators are resolved with
// missingkey=error and keep their text where a key is missing.
func (x *expander) interpolate(g map[string]any, params map[string]any) (map[string]any, error) {
	resolveOpts := x.spec.GoTemplateOptions
	if x.spec.GoTemplate {
		var stripped []string
		for _, o := range x.spec.GoTemplateOptions {
			if !strings.HasPrefix(o, "missingkey=") {
				stripped = append(stripped, o)
			}
		}
		resolveOpts = append(stripped, "missingkey=error")
	}
	skip := func(parentKey string, parent map[string]any, key string) (any, bool, error) {
		if key != "values" || !valuesGenerators[parentKey] {
			return nil, false, nil
		}
		vals, ok := parent[key].(map[string]any)
		if !ok {
			return parent[key], true, nil
		}
		out := make(map[string]any, len(vals))
		for k, v := range vals {
			s, _ := v.(string)
			r, err := x.replace(s, params, resolveOpts)
			if err != nil {
				if isMissingKeyError(err) {
					out[k] = v
					continue
				}
				return nil, true, fmt.Errorf("failed to pre-resolve Values key %q: %w", k, err)
			}
			out[k] = r
		}
		return out, true, nil
	}
	out, err := x.replaceDeep(g, params, x.spec.GoTemplateOptions, skip)
	if err != nil {
		return nil, fmt.Errorf("failed to replace parameters in generator: %w", err)
	}
	return out.(map[string]any), nil
}

// valuesGenerators are the generator kinds whose body has a Values map.
var valuesGenerators = map[string]bool{"git": true, "clusters": true, "clusterDecisionResource": true,
	"scmProvider": true, "pullRequest": true, "plugin": true}

func isMissingKeyError(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "map has no entry for key") || strings.Contains(msg, "can't evaluate field")
}

// flattenParams is Argo CD's flattenParameters, for selectors.
func flattenParams(in map[string]any) (map[string]string, error) {
	flat, err := flatten.Flatten(normalizeForFlatten(in), "", flatten.DotStyle)
	if err != nil {
		return nil, fmt.Errorf("error flatenning parameters: %w", err)
	}
	out := make(map[string]string, len(flat))
	for k, v := range flat {
		out[k] = fmt.Sprintf("%v", v)
	}
	return out, nil
}

func normalizeForFlatten(in map[string]any) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		switch t := v.(type) {
		case map[string]string:
			inner := make(map[string]any, len(t))
			for ik, iv := range t {
				inner[ik] = iv
			}
			out[k] = inner
		case map[string]any:
			out[k] = normalizeForFlatten(t)
		default:
			out[k] = v
		}
	}
	return out
}

// appendValues is Argo CD's appendTemplatedValues.
func (x *expander) appendValues(values map[string]any, params map[string]any) error {
	tmp := map[string]any{}
	for _, key := range slices.Sorted(maps.Keys(values)) {
		s, ok := values[key].(string)
		if !ok {
			return fmt.Errorf("values.%s must be a string", key)
		}
		r, err := x.replace(s, params, x.spec.GoTemplateOptions)
		if err != nil {
			return fmt.Errorf("failed to replace templated string: %w", err)
		}
		if x.spec.GoTemplate {
			if tmp["values"] == nil {
				tmp["values"] = map[string]string{}
			}
			tmp["values"].(map[string]string)[key] = r
		} else {
			tmp["values."+key] = r
		}
	}
	maps.Copy(params, tmp)
	return nil
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = deepCopy(e)
		}
		return out
	case map[string]string:
		return maps.Clone(t)
	}
	return v
}

// errEmpty is Argo CD's ErrEmptyAppSetGenerator.
var errEmpty = errors.New("ApplicationSet is empty")
