package main

import (
	"sort"
	"strings"

	"github.com/routeguard/routeguard/plugins/sdk"
)

// claimedHosts returns the external hostnames o claims, sorted and unique.
func claimedHosts(o *sdk.Object) []string {
	spec, _ := o.Body["spec"].(map[string]any)
	var hosts []string
	switch o.Group() + "/" + o.Kind {
	case "gateway.networking.k8s.io/HTTPRoute", "gateway.networking.k8s.io/GRPCRoute", "gateway.networking.k8s.io/TLSRoute":
		hosts = strings_(spec["hostnames"])
	case "gateway.networking.k8s.io/Gateway":
		for _, l := range maps(spec["listeners"]) {
			if h, _ := l["hostname"].(string); h != "" {
				hosts = append(hosts, h)
			}
		}
	case "networking.k8s.io/Ingress":
		for _, r := range maps(spec["rules"]) {
			if h, _ := r["host"].(string); h != "" {
				hosts = append(hosts, h)
			}
		}
		for _, t := range maps(spec["tls"]) {
			hosts = append(hosts, strings_(t["hosts"])...)
		}
	case "networking.istio.io/VirtualService":
		for _, h := range strings_(spec["hosts"]) {
			if external(h) {
				hosts = append(hosts, h)
			}
		}
	case "networking.istio.io/Gateway":
		for _, s := range maps(spec["servers"]) {
			for _, h := range strings_(s["hosts"]) {
				// Istio Gateway hosts are "namespace/host"; the namespace
				// part says which VirtualServices may bind, not the host.
				if i := strings.IndexByte(h, '/'); i >= 0 {
					h = h[i+1:]
				}
				hosts = append(hosts, h)
			}
		}
	}
	return uniq(hosts)
}

// external reports whether a VirtualService host names traffic from
// outside the mesh: mesh-internal short names and cluster-local names
// are not claims on the team's public hostnames.
func external(h string) bool {
	if h == "*" {
		return true
	}
	if !strings.Contains(h, ".") {
		return false
	}
	for _, suffix := range []string{".svc", ".svc.cluster.local", ".cluster.local"} {
		if strings.HasSuffix(h, suffix) {
			return false
		}
	}
	return true
}

func maps(v any) []map[string]any {
	items, _ := v.([]any)
	var out []map[string]any
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func strings_(v any) []string {
	items, _ := v.([]any)
	var out []string
	for _, it := range items {
		if s, ok := it.(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

func uniq(in []string) []string {
	sort.Strings(in)
	out := in[:0]
	for i, s := range in {
		s = strings.ToLower(s)
		if i == 0 || s != out[len(out)-1] {
			out = append(out, s)
		}
	}
	return out
}
