package flux

import (
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"

	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// The Flux a flux-operator tree installs: its FluxInstance (or the
// flux-instance chart's), the range it asks for and the manifests it takes
// them from (fluxOperatorShips).

// operatorEvidence reads FluxInstances and HelmReleases of the
// flux-instance chart.
func operatorEvidence(objs []*manifest.Object, lines []fluxEvidence) []fluxEvidence {
	ociURL := map[nsName]*manifest.Object{}
	for _, o := range objs {
		if o.Group() == SourceGroup && o.Kind == "OCIRepository" {
			ociURL[nsName{o.Namespace, o.Name}] = o
		}
	}
	chartOf := func(hr *manifest.Object) (name, version string, src manifest.Source) {
		if c := field.String(hr.Body, "spec", "chart", "spec", "chart"); c != "" {
			return c, field.String(hr.Body, "spec", "chart", "spec", "version"), hr.FieldSource("spec.chart.spec.version")
		}
		ref := field.Map(hr.Body, "spec", "chartRef")
		if field.String(ref, "kind") != "OCIRepository" {
			return "", "", manifest.Source{}
		}
		ns := field.String(ref, "namespace")
		if ns == "" {
			ns = hr.Namespace
		}
		repo := ociURL[nsName{ns, field.String(ref, "name")}]
		if repo == nil {
			// A namespace left to the cluster (kustomization.yaml's
			// namespace): match by name.
			for k, o := range ociURL {
				if k.name == field.String(ref, "name") {
					repo = o
				}
			}
		}
		if repo == nil {
			return "", "", manifest.Source{}
		}
		url := strings.TrimSuffix(field.String(repo.Body, "spec", "url"), "/")
		return url[strings.LastIndex(url, "/")+1:], field.String(repo.Body, "spec", "ref", "tag"), repo.FieldSource("spec.ref.tag")
	}
	// The flux-operator the tree installs: its chart or its image.
	var operator string
	var operatorSrc manifest.Source
	for _, o := range objs {
		if o.Group() == HelmGroup && o.Kind == "HelmRelease" {
			if name, version, src := chartOf(o); name == "flux-operator" && version != "" && operator == "" {
				operator, operatorSrc = "v"+strings.TrimPrefix(version, "v"), src
			}
		}
	}
	if operator == "" {
		for _, e := range lines {
			if e.rank == rankOperatorImage {
				operator, operatorSrc = e.what, e.src
				break
			}
		}
	}
	var out []fluxEvidence
	for _, o := range objs {
		var dist map[string]any
		var prefix string
		switch {
		case o.Group() == "fluxcd.controlplane.io" && o.Kind == "FluxInstance":
			dist, prefix = field.Map(o.Body, "spec", "distribution"), "spec.distribution"
		case o.Group() == HelmGroup && o.Kind == "HelmRelease":
			if name, _, _ := chartOf(o); name != "flux-instance" {
				continue
			}
			dist, prefix = field.Map(o.Body, "spec", "values", "instance", "distribution"), "spec.values.instance.distribution"
		default:
			continue
		}
		defaulted := map[string]bool{}
		if o.Kind == "HelmRelease" && len(field.Maps(o.Body, "spec", "valuesFrom")) > 0 && (field.String(dist, "version") == "" || field.String(dist, "artifact") == "") {
			// Values from a ConfigMap or Secret routeguard does not read
			// here: the chart's defaults may not be what it installs.
			continue
		}
		if o.Kind == "HelmRelease" {
			// The flux-instance chart's defaults (its values.yaml).
			dist = maps.Clone(dist)
			if dist == nil {
				dist = map[string]any{}
			}
			if field.String(dist, "version") == "" {
				dist["version"] = "2.x"
				defaulted["version"] = true
			}
			if field.String(dist, "artifact") == "" {
				dist["artifact"] = "oci://ghcr.io/controlplaneio-fluxcd/flux-operator-manifests:latest"
				defaulted["artifact"] = true
			}
		}
		if e, ok := instanceEvidence(o, dist, prefix, defaulted, operator, operatorSrc); ok {
			out = append(out, e)
		}
	}
	return out
}

// instanceEvidence decides one FluxInstance's (or flux-instance chart's)
// distribution: the newest Flux its artifact (else the operator's own
// manifests) holds within its version range.
//
// defaulted names the fields the flux-instance chart's defaults filled in.
func instanceEvidence(o *manifest.Object, dist map[string]any, prefix string, defaulted map[string]bool, operator string, operatorSrc manifest.Source) (fluxEvidence, bool) {
	rangeText := field.String(dist, "version")
	if rangeText == "" {
		return fluxEvidence{}, false
	}
	rangeSrc := o.FieldSource(prefix + ".version")
	c, err := semver.NewConstraint(rangeText)
	if err != nil {
		return fluxEvidence{}, false
	}
	within := fmt.Sprintf("%q", rangeText)
	if defaulted["version"] {
		within += ", the flux-instance chart's default"
	}
	// A range below 2.9 (2.8.x, ~2.7, 2.8.5) is not strict whatever the
	// artifact; one from 2.9 on (2.9.x, >=2.9, 2.9.4) is.
	below, from := admitted(c)
	switch {
	case below && !from:
		return fluxEvidence{rank: rankOperator, what: fmt.Sprintf("kustomize-controller before v1.9 (Flux %s, distribution.version)", within), src: rangeSrc}, true
	case from && !below:
		return fluxEvidence{rank: rankOperator, strict: true, what: fmt.Sprintf("kustomize-controller v1.9 or later (Flux %s, distribution.version)", within), src: rangeSrc}, true
	case !below && !from:
		return fluxEvidence{}, false
	}
	artifact := field.String(dist, "artifact")
	shippedBy, src := operator, operatorSrc
	if artifact != "" {
		m := manifestsTag.FindStringSubmatch(artifact)
		if m == nil || (m[1] == "" && strings.Contains(artifact, "@")) {
			return fluxEvidence{}, false
		}
		src = o.FieldSource(prefix + ".artifact")
		if m[1] == "" || m[1] == "latest" {
			latest := "flux-operator-manifests:latest"
			if defaulted["artifact"] {
				latest += ", the flux-instance chart's default"
			}
			return fluxEvidence{rank: rankOperator, strict: true, what: fmt.Sprintf("kustomize-controller v1.9 or later (Flux %s from %s)", within, latest), src: src}, true
		}
		shippedBy = "v" + strings.TrimPrefix(m[1], "v")
	}
	if shippedBy == "" {
		return fluxEvidence{}, false
	}
	shipped, ok := fluxOperatorShips[shippedBy]
	if !ok {
		// A flux-operator newer than the table ships at least what its
		// newest release does (it only adds Flux releases at the top).
		newest, v := newestOperator()
		if w, err := semver.NewVersion(shippedBy); err != nil || !w.GreaterThan(v) {
			return fluxEvidence{}, false
		}
		shipped = fluxOperatorShips[newest]
		if e, ok := newestWithin(c, shipped, newest, within, src); ok && e.strict {
			e.what = fmt.Sprintf("kustomize-controller v1.9 or later (flux-operator %s's manifests within %s; it is newer than %s, the newest routeguard knows, which ships Flux %s)",
				shippedBy, within, newest, strings.Fields(shipped)[0])
			return e, true
		}
		return fluxEvidence{}, false
	}
	if e, ok := newestWithin(c, shipped, shippedBy, within, src); ok {
		return e, true
	}
	return fluxEvidence{}, false
}

// newestWithin is the newest of the shipped Flux versions the range allows.
func newestWithin(c *semver.Constraints, shipped, shippedBy, within string, src manifest.Source) (fluxEvidence, bool) {
	for _, s := range strings.Fields(shipped) {
		v := semver.MustParse(s)
		if c.Check(v) {
			what := fmt.Sprintf("kustomize-controller %s (Flux v%s, the newest of flux-operator %s's manifests within %s)", controllerOf(v), v, shippedBy, within)
			return fluxEvidence{rank: rankOperator, strict: !v.LessThan(strictFrom), what: what, src: src}, true
		}
	}
	return fluxEvidence{}, false
}

// admitted says whether a distribution.version range admits a Flux 2
// version before 2.9 and one from 2.9 on, probing every version a
// flux-operator release ships and, for what is to come, 2.9.0 to 2.40.x
// and 3.0.0.
func admitted(c *semver.Constraints) (below, from bool) {
	for _, v := range fluxVersionProbes() {
		if c.Check(v) {
			if v.LessThan(strictFrom) {
				below = true
			} else {
				from = true
			}
		}
	}
	return below, from
}

var fluxVersionProbes = sync.OnceValue(func() []*semver.Version {
	seen := map[string]bool{}
	var out []*semver.Version
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, semver.MustParse(s))
		}
	}
	for _, shipped := range fluxOperatorShips {
		for _, s := range strings.Fields(shipped) {
			add(s)
		}
	}
	for minor := 0; minor <= 40; minor++ {
		for patch := 0; patch <= 30; patch++ {
			add(fmt.Sprintf("v2.%d.%d", minor, patch))
		}
	}
	add("v3.0.0")
	return out
})

// newestOperator is the newest flux-operator release of the table.
func newestOperator() (string, *semver.Version) {
	var name string
	var newest *semver.Version
	for k := range fluxOperatorShips {
		if v := semver.MustParse(k); newest == nil || v.GreaterThan(newest) {
			name, newest = k, v
		}
	}
	return name, newest
}
