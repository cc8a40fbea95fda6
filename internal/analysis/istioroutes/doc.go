// Package istioroutes holds checks on Istio routing that Istio's own
// analyzers do not do offline, for blue/green and canary releases: route
// destinations naming a subset no DestinationRule defines, and route
// weights that do not add up to 100. Pure Go: no Istio imports.
package istioroutes

import (
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Group is Istio's networking API group.
const Group = "networking.istio.io"

// Analyzers returns the package's analyzers.
func Analyzers() []analysis.Analyzer {
	return []analysis.Analyzer{Subsets{}, Weights{}}
}

// routeSections are the VirtualService sections holding routes.
var routeSections = []string{"http", "tcp", "tls"}

// destination is one route destination of a VirtualService.
type destination struct {
	section string // "http[0]"
	host    string
	subset  string
	weight  int64
	hasW    bool
}

// routesOf returns each route (list of destinations) of a VirtualService.
func routesOf(vs *manifest.Object) [][]destination {
	var out [][]destination
	for _, sec := range routeSections {
		for i, r := range field.Maps(vs.Body, "spec", sec) {
			var ds []destination
			for _, d := range field.Maps(r, "route") {
				w, hasW := field.Int(d, "weight")
				ds = append(ds, destination{section: sec + "[" + itoa(i) + "]",
					host: field.String(d, "destination", "host"), subset: field.String(d, "destination", "subset"),
					weight: w, hasW: hasW})
			}
			out = append(out, ds)
		}
	}
	return out
}

// mirrorsOf returns the mirror destinations of a VirtualService's http
// routes (mirror and mirrors[].destination): they carry subsets too.
func mirrorsOf(vs *manifest.Object) []destination {
	var out []destination
	for i, r := range field.Maps(vs.Body, "spec", "http") {
		sec := "http[" + itoa(i) + "]"
		if m := field.Map(r, "mirror"); m != nil {
			out = append(out, destination{section: sec + " mirror", host: field.String(m, "host"), subset: field.String(m, "subset")})
		}
		for j, m := range field.Maps(r, "mirrors") {
			out = append(out, destination{section: sec + " mirrors[" + itoa(j) + "]",
				host: field.String(m, "destination", "host"), subset: field.String(m, "destination", "subset")})
		}
	}
	return out
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// fqdn resolves a short host name as Istio does: relative to ns.
func fqdn(host, ns string) string {
	switch strings.Count(host, ".") {
	case 0:
		return host + "." + ns + ".svc.cluster.local"
	case 1:
		return host + ".svc.cluster.local"
	}
	if strings.HasSuffix(host, ".svc") {
		return host + ".cluster.local"
	}
	return host
}

// serviceNamespace returns the namespace of a cluster-local FQDN, or "".
func serviceNamespace(fq string) string {
	rest, ok := strings.CutSuffix(fq, ".svc.cluster.local")
	if !ok {
		return ""
	}
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		return rest[i+1:]
	}
	return ""
}

// hostMatches reports whether a DestinationRule host (possibly "*.suffix")
// applies to the destination FQDN.
func hostMatches(drHost, fq string) bool {
	if drHost == fq {
		return true
	}
	if strings.HasPrefix(drHost, "*") {
		return strings.HasSuffix(fq, drHost[1:])
	}
	return false
}
