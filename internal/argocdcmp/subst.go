package argocdcmp

import (
	"regexp"

	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/manifest"
)

// substituteKey is Flux's label/annotation that turns substitution off for
// one object.
const substituteKey = "kustomize.toolkit.fluxcd.io/substitute"

// varRE finds ${name}, ${name:=d}, ${name:-d}, ${name=d} and ${name-d};
// the group before the dollar excludes the $${name} escape.
var varRE = regexp.MustCompile(`(^|[^$])\$\{([_a-zA-Z][_a-zA-Z0-9]*)(?::?[=-]([^}]*))?\}`)

// Variables lists the substitution variables the objects use, each with its
// default ("" when it has none), for the parameter announcement. Objects
// with substitution disabled are skipped. (The substitution itself is
// internal/substitute: Flux's own code.)
func Variables(objs []*manifest.Object) map[string]string {
	vars := map[string]string{}
	for _, o := range objs {
		if o.Labels()[substituteKey] == "disabled" || o.Annotations()[substituteKey] == "disabled" {
			continue
		}
		data, err := yaml.Marshal(o.Body)
		if err != nil {
			continue
		}
		for _, m := range varRE.FindAllStringSubmatch(string(data), -1) {
			if old, ok := vars[m[2]]; !ok || old == "" {
				vars[m[2]] = m[3]
			}
		}
	}
	return vars
}
