package argocdcmp

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
)

// Parameter is one entry of spec.source.plugin.parameters, as Argo CD
// encodes it in ARGOCD_APP_PARAMETERS.
type Parameter struct {
	Name   string            `json:"name"`
	String *string           `json:"string,omitempty"`
	Array  []string          `json:"array,omitempty"`
	Map    map[string]string `json:"map,omitempty"`
}

// Parameters are the Application's plugin parameters, in the order given.
type Parameters []Parameter

// Parameter names routeguard understands (announced by 'cmp parameters').
const (
	ParamFailOn       = "fail-on"
	ParamReport       = "report"
	ParamReleaseName  = "release-name"
	ParamValuesFiles  = "values-files"
	ParamHelmParams   = "helm-parameters"
	ParamVariables    = "substitution-variables"
	ParamWeights      = "weights"
	collectionString  = "string"
	collectionArray   = "array"
	collectionMap     = "map"
	reportNone        = "none"
	ReportConfigMap   = "configmap"
	defaultFailOnText = "error"
)

// paramCollections maps every known parameter to its collection type.
var paramCollections = map[string]string{
	ParamFailOn:      collectionString,
	ParamReport:      collectionString,
	ParamReleaseName: collectionString,
	ParamValuesFiles: collectionArray,
	ParamHelmParams:  collectionMap,
	ParamVariables:   collectionMap,
	ParamWeights:     collectionMap,
}

// parseParameters decodes ARGOCD_APP_PARAMETERS. Without it (a command run
// by hand), string and array parameters are read from PARAM_<NAME> and
// PARAM_<NAME>_<i>; map parameters cannot be read back from PARAM_ variables
// because Argo CD upper-cases their keys.
func parseParameters(jsonText string, paramVars map[string]string) (Parameters, error) {
	var ps Parameters
	if t := strings.TrimSpace(jsonText); t != "" && t != "null" {
		if err := json.Unmarshal([]byte(t), &ps); err != nil {
			return nil, fmt.Errorf("ARGOCD_APP_PARAMETERS is not the JSON list Argo CD sends: %w", err)
		}
	} else {
		ps = paramsFromVars(paramVars)
	}
	seen := map[string]bool{}
	out := ps[:0]
	for _, p := range ps {
		want, ok := paramCollections[p.Name]
		if !ok {
			return nil, fmt.Errorf("parameter %q is not one routeguard reads; use one of %s (see 'routeguard cmp parameters')",
				p.Name, strings.Join(slices.Sorted(maps.Keys(paramCollections)), ", "))
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("parameter %q is given twice; keep one", p.Name)
		}
		seen[p.Name] = true
		got := p.collection()
		if got == "" {
			continue // named without a value: not set
		}
		if got != want {
			return nil, fmt.Errorf("parameter %q must be a %s (collectionType %s), got a %s", p.Name, want, want, got)
		}
		out = append(out, p)
	}
	return out, nil
}

func (p Parameter) collection() string {
	switch {
	case p.String != nil:
		return collectionString
	case p.Array != nil:
		return collectionArray
	case p.Map != nil:
		return collectionMap
	}
	return ""
}

// paramsFromVars rebuilds string and array parameters from PARAM_ variables.
func paramsFromVars(vars map[string]string) Parameters {
	var ps Parameters
	for _, name := range slices.Sorted(maps.Keys(paramCollections)) {
		base := "PARAM_" + envName(name)
		switch paramCollections[name] {
		case collectionString:
			if v, ok := vars[base]; ok {
				ps = append(ps, Parameter{Name: name, String: &v})
			}
		case collectionArray:
			var arr []string
			for i := 0; ; i++ {
				v, ok := vars[base+"_"+strconv.Itoa(i)]
				if !ok {
					break
				}
				arr = append(arr, v)
			}
			if arr != nil {
				ps = append(ps, Parameter{Name: name, Array: arr})
			}
		}
	}
	return ps
}

// envName escapes a parameter name the way Argo CD does for PARAM_ variables.
func envName(name string) string {
	return envNameRE.ReplaceAllString(strings.ToUpper(name), "_")
}

var envNameRE = regexp.MustCompile(`[^A-Z0-9_]`)

// Get returns the named parameter.
func (ps Parameters) Get(name string) (Parameter, bool) {
	for _, p := range ps {
		if p.Name == name {
			return p, true
		}
	}
	return Parameter{}, false
}

// Settings are what the Application asks of routeguard, from its plugin
// parameters and plugin env (parameters win).
type Settings struct {
	FailOn         analysis.FailOn           // unset: .routeguard.yaml's, else error
	Report         string                    // "none" or "configmap"
	AllowNetwork   bool                      // remote Kustomize bases and Helm charts
	Release        string                    // Helm release name; "" means ARGOCD_APP_NAME
	ValuesFiles    []string                  // Helm values files, relative to the app
	HelmParameters map[string]string         // Helm --set key=value
	Variables      map[string]string         // ${var} substitution in the rendered manifests
	Weights        map[string]map[string]int // service -> backend -> weight (see ParseWeights)
}

var varNameRE = regexp.MustCompile(`^[_[:alpha:]][_[:alpha:][:digit:]]*$`)

// Settings resolves parameters and plugin env into settings, rejecting
// values that routeguard would otherwise have to guess about.
func (b *Build) Settings() (Settings, error) {
	s := Settings{Report: reportNone}
	failOn := b.PluginEnv[EnvFailOn]
	if v := b.PluginEnv[EnvReport]; v != "" {
		s.Report = v
	}
	for _, raw := range []struct{ name, value string }{
		{"plugin env " + EnvAllowNetwork, b.PluginEnv[EnvAllowNetwork]},
		{"sidecar env ROUTEGUARD_ALLOW_NETWORK", b.SidecarAllowNetwork},
	} {
		if raw.value == "" {
			continue
		}
		on, err := strconv.ParseBool(raw.value)
		if err != nil {
			return s, fmt.Errorf("%s must be true or false, got %q", raw.name, raw.value)
		}
		s.AllowNetwork = s.AllowNetwork || on
	}
	for _, p := range b.Params {
		switch p.Name {
		case ParamFailOn:
			failOn = *p.String
		case ParamReport:
			s.Report = *p.String
		case ParamReleaseName:
			s.Release = *p.String
		case ParamValuesFiles:
			s.ValuesFiles = p.Array
		case ParamHelmParams:
			s.HelmParameters = p.Map
		case ParamVariables:
			s.Variables = p.Map
		case ParamWeights:
			w, err := ParseWeights(p.Map)
			if err != nil {
				return s, err
			}
			s.Weights = w
		}
	}
	var err error
	if s.FailOn, err = analysis.ParseFailOn(failOn); err != nil {
		return s, fmt.Errorf("fail-on (parameter or plugin env %s) %w", EnvFailOn, err)
	}
	switch s.Report {
	case reportNone, ReportConfigMap:
	default:
		return s, fmt.Errorf("report (parameter or plugin env %s) must be none or configmap, got %q", EnvReport, s.Report)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Variables)) {
		if !varNameRE.MatchString(k) {
			return s, fmt.Errorf("parameter substitution-variables: %q is not a valid variable name (letters, digits, _; not starting with a digit)", k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.HelmParameters)) {
		if strings.TrimSpace(k) == "" {
			return s, fmt.Errorf("parameter helm-parameters has an empty key; give the value's path, e.g. image.tag")
		}
	}
	return s, nil
}

// HelmSet returns the Helm parameters as sorted key=value pairs.
func (s Settings) HelmSet() []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(s.HelmParameters)) {
		out = append(out, k+"="+s.HelmParameters[k])
	}
	return out
}
