package bundle

import (
	"encoding/json"
	"fmt"
	"slices"
)

// FluxOperatorKinds are the kinds flux-operator adds to the object kinds an
// Alert's eventSources and a Receiver's resources accept, when its
// FluxInstance installs Flux (internal/builder/templates.go of
// controlplaneio-fluxcd/flux-operator: notificationPatchTmpl). Repositories
// installed that way (most of today's home labs) subscribe Alerts to
// FluxInstance events; notification-controller's own CRD refuses the kind,
// so bundled as upstream it would make each such Alert a false error. The
// bundle carries the CRDs as flux-operator installs them: widening the enum
// costs nothing on a cluster installed with `flux install`, where no
// FluxInstance exists to name.
var FluxOperatorKinds = []string{"FluxInstance", "ResourceSet", "ResourceSetInputProvider"}

// fluxOperatorFields are the CRDs flux-operator patches and the spec field
// whose items' kind enum it widens.
var fluxOperatorFields = map[string]string{
	"alerts.notification.toolkit.fluxcd.io":    "eventSources",
	"receivers.notification.toolkit.fluxcd.io": "resources",
}

// withFluxOperatorKinds adds FluxOperatorKinds to the kind enum of field's
// items in every version of the CRD (compact JSON), as flux-operator's
// patch does for each version the release serves. A version without that
// enum is an error: upstream changed, and the patch must be looked at again.
func withFluxOperatorKinds(crd []byte, name, field string) ([]byte, error) {
	var obj map[string]any
	if err := json.Unmarshal(crd, &obj); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	spec, _ := obj["spec"].(map[string]any)
	versions, _ := spec["versions"].([]any)
	for _, v := range versions {
		v, _ := v.(map[string]any)
		enum, ok := kindEnum(v, field)
		if !ok {
			return nil, fmt.Errorf("%s version %v: no enum at openAPIV3Schema.properties.spec.properties.%s.items.properties.kind (flux-operator's patch expects one)", name, v["name"], field)
		}
		for _, k := range FluxOperatorKinds {
			if !slices.Contains(enum.values(), k) {
				enum.add(k)
			}
		}
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// enumRef is the enum list of one schema, to read and append to in place.
type enumRef struct{ schema map[string]any }

func (e enumRef) values() []string {
	var out []string
	for _, v := range e.schema["enum"].([]any) {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func (e enumRef) add(v string) { e.schema["enum"] = append(e.schema["enum"].([]any), v) }

// kindEnum finds openAPIV3Schema.properties.spec.properties.<field>.items.properties.kind
// with an enum in one CRD version.
func kindEnum(version map[string]any, field string) (enumRef, bool) {
	s, _ := version["schema"].(map[string]any)
	cur, _ := s["openAPIV3Schema"].(map[string]any)
	for _, step := range []string{"properties", "spec", "properties", field, "items", "properties", "kind"} {
		next, ok := cur[step].(map[string]any)
		if !ok {
			return enumRef{}, false
		}
		cur = next
	}
	if _, ok := cur["enum"].([]any); !ok {
		return enumRef{}, false
	}
	return enumRef{cur}, true
}
