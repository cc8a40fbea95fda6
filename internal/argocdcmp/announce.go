package argocdcmp

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifest"
	"sigs.k8s.io/yaml"
)

// Announcement is one parameter offered to the Argo CD UI, in the shape of
// Argo CD's ParameterAnnouncement (reposerver/apiclient).
type Announcement struct {
	Name           string            `json:"name"`
	Title          string            `json:"title,omitempty"`
	Tooltip        string            `json:"tooltip,omitempty"`
	Required       bool              `json:"required,omitempty"`
	ItemType       string            `json:"itemType,omitempty"`
	CollectionType string            `json:"collectionType,omitempty"`
	String         string            `json:"string,omitempty"`
	Array          []string          `json:"array,omitempty"`
	Map            map[string]string `json:"map,omitempty"`
}

// AnnounceInput is what the announcement is built from.
type AnnounceInput struct {
	Helm          bool              // the app is a Helm chart
	FailOn        string            // effective failOn (parameter, env, .routeguard.yaml or default)
	Release       string            // effective Helm release name
	ValuesFiles   []string          // values files found next to Chart.yaml
	HelmValues    map[string]string // the chart's values.yaml, flattened
	Variables     map[string]string // substitution variables the manifests use, with defaults
	Weights       map[string]string // current weights of split routes, per service (see CurrentWeights)
	RenderProblem string            // why the app could not be rendered ("" if it could)
}

// MaxHelmValues caps the chart values announced as helm-parameters.
const MaxHelmValues = 100

// Announce builds the dynamic parameter announcement: the knobs that
// change what 'cmp generate' renders or when it fails.
func Announce(in AnnounceInput) []Announcement {
	tip := func(s string) string {
		if in.RenderProblem != "" {
			return s + " (the app does not render with the current parameters: " + in.RenderProblem + ")"
		}
		return s
	}
	out := []Announcement{
		{Name: ParamFailOn, Title: "Fail on", ItemType: "string", CollectionType: collectionString, String: in.FailOn,
			Tooltip: tip("Lowest finding severity that fails manifest generation: error, warning or never. Default: failOn of .routeguard.yaml, else error.")},
		{Name: ParamReport, Title: "Report object", ItemType: "string", CollectionType: collectionString, String: reportNone,
			Tooltip: "none, or configmap: render a ConfigMap " + ReportNamePrefix + "-<app> holding every finding, so warnings show in the app's resource tree."},
	}
	if in.Helm {
		files := "none found next to Chart.yaml"
		if len(in.ValuesFiles) > 0 {
			files = strings.Join(in.ValuesFiles, ", ")
		}
		out = append(out,
			Announcement{Name: ParamValuesFiles, Title: "Helm values files", ItemType: "string", CollectionType: collectionArray,
				Tooltip: "Values files applied after values.yaml, in order, relative to the chart (" + files + ")."},
			Announcement{Name: ParamHelmParams, Title: "Helm parameters", ItemType: "string", CollectionType: collectionMap, Map: capped(in.HelmValues),
				Tooltip: "Helm --set values (key=value, keys as dotted paths). Defaults shown are the chart's values.yaml."},
			Announcement{Name: ParamReleaseName, Title: "Helm release name", ItemType: "string", CollectionType: collectionString, String: in.Release,
				Tooltip: "Helm release name. Default: the Application's name."},
		)
	}
	if len(in.Variables) > 0 {
		out = append(out, Announcement{Name: ParamVariables, Title: "Substitution variables", ItemType: "string", CollectionType: collectionMap, Map: in.Variables,
			Tooltip: "Values for ${var} in the manifests (Flux postBuild semantics: ${var:=default}; a variable without value or default fails)."})
	}
	if len(in.Weights) > 0 {
		out = append(out, Announcement{Name: ParamWeights, Title: "Route weights", ItemType: "string", CollectionType: collectionMap, Map: in.Weights,
			Tooltip: "Traffic split per service, as \"backend weight, backend weight\" adding up to 100 (e.g. blue 90, green 10); defaults are the current weights. " +
				"Sets every VirtualService destination <service>/<subset> and HTTPRoute backendRef <service>-<backend>; the result is analyzed before Argo CD sees it."})
	}
	return out
}

func capped(m map[string]string) map[string]string {
	if len(m) <= MaxHelmValues {
		return m
	}
	out := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(m))[:MaxHelmValues] {
		out[k] = m[k]
	}
	return out
}

// ChartInputs returns the values files next to a chart's Chart.yaml
// (values*.yaml and *values.yaml other than values.yaml) and the chart's
// values.yaml flattened to Helm --set paths (scalars only). Files are read
// through root (the unpacked repository): a values.yaml that is a symlink
// out of it is refused, never shown in the Argo CD UI.
func ChartInputs(root *confine.Root, chartDir string) (files []string, values map[string]string, err error) {
	entries, err := root.ReadDir(chartDir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		n := e.Name()
		ext := filepath.Ext(n)
		if e.IsDir() || (ext != ".yaml" && ext != ".yml") || n == "values.yaml" || n == "values.yml" {
			continue
		}
		base := strings.TrimSuffix(n, ext)
		if strings.HasPrefix(base, "values") || strings.HasSuffix(base, "values") {
			files = append(files, n)
		}
	}
	sort.Strings(files)
	values = map[string]string{}
	data, err := root.ReadFile(filepath.Join(chartDir, "values.yaml"), manifest.DefaultMaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return files, values, nil // a chart needs no values.yaml
	}
	if err != nil {
		return files, values, err
	}
	var v map[string]any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return files, values, fmt.Errorf("values.yaml: %w", err)
	}
	flatten("", v, values)
	return files, values, nil
}

func flatten(prefix string, v any, out map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			flatten(p, x, out)
		}
	case []any:
		for i, x := range t {
			flatten(fmt.Sprintf("%s[%d]", prefix, i), x, out)
		}
	case nil:
	default:
		out[prefix] = fmt.Sprint(t)
	}
}
