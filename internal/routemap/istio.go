package routemap

import (
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/routing"
)

// istio adds Istio Gateways (their servers' TLS hosts) and the entries and
// gateway attachments of every VirtualService.
func istio(c *analysis.Context, m *Map) {
	gateways := map[string]*manifest.Object{}
	for _, gw := range c.Objects().ByKind(routing.IstioGroup, "Gateway") {
		name := "Istio Gateway " + qualified(c.Namespace(gw), gw.Name)
		gateways[qualified(c.Namespace(gw), gw.Name)] = gw
		var ports []string
		for _, s := range field.Maps(gw.Body, "spec", "servers") {
			n, _ := field.Int(s, "port", "number")
			ports = append(ports, fmt.Sprintf("%s :%d", field.String(s, "port", "protocol"), n))
			tls := field.Map(s, "tls")
			if tls == nil {
				continue
			}
			cert := "credential " + field.String(tls, "credentialName")
			switch {
			case field.String(tls, "mode") == "PASSTHROUGH":
				cert = "passthrough"
			case field.String(tls, "credentialName") == "":
				cert = "(files in the gateway)"
			}
			for _, h := range field.Strings(s, "hosts") {
				m.TLS = append(m.TLS, TLSHost{Parent: name, Host: h, Certificate: cert})
			}
		}
		m.Parents = append(m.Parents, Parent{Name: name, Detail: strings.Join(ports, ", ")})
	}
	backends := map[string][]Backend{}
	for _, l := range routing.WeightedLists(c.Objects()) {
		if l.Object.Group() != routing.IstioGroup {
			continue
		}
		var bs []Backend
		for _, b := range l.Entries {
			name := field.String(b.Item, "destination", "host")
			if p, ok := field.Int(b.Item, "destination", "port", "number"); ok {
				name += fmt.Sprintf(":%d", p)
			}
			if b.Subset != "" {
				name += " (" + b.Subset + ")"
			}
			w := b.Weight
			if len(l.Entries) == 1 && w == 0 {
				w = 100 // a single destination takes all traffic
			}
			bs = append(bs, Backend{Name: name, Weight: w})
		}
		backends[l.Object.Key().String()+"\x00"+l.Path] = bs
	}
	for _, vs := range c.Objects().ByKind(routing.IstioGroup, "VirtualService") {
		ns := c.Namespace(vs)
		route := "VirtualService " + qualified(ns, vs.Name)
		hosts := field.Strings(vs.Body, "spec", "hosts")
		refs := field.Strings(vs.Body, "spec", "gateways")
		if len(refs) == 0 {
			refs = []string{"mesh"}
		}
		var parents []string
		for _, ref := range refs {
			if ref == "mesh" {
				parents = append(parents, "mesh")
				continue
			}
			key := ref
			if !strings.Contains(ref, "/") {
				key = ns + "/" + ref
			}
			parent := "Istio Gateway " + key
			att := Attachment{Route: route, Parent: parent, State: Unknown}
			if gw, ok := gateways[key]; ok {
				att.State = Attached
				if !serverHostsMatch(gw, ns, hosts) {
					att.State, att.Reason = Detached, "no server of the Gateway lists any of the VirtualService's hosts"
				}
			}
			m.Attachments = append(m.Attachments, att)
			if att.State != Detached {
				parents = append(parents, parent)
			}
		}
		for _, section := range []string{"http", "tcp", "tls"} {
			for i, r := range field.Maps(vs.Body, "spec", section) {
				bs := backends[vs.Key().String()+"\x00"+fmt.Sprintf("spec.%s[%d].route", section, i)]
				for _, match := range istioMatches(section, r) {
					for _, p := range parents {
						for _, h := range hosts {
							m.Entries = append(m.Entries, Entry{Parent: p, Host: h, Match: match, Route: route, Backends: bs})
						}
					}
				}
			}
		}
	}
}

func istioMatches(section string, r map[string]any) []string {
	ms := field.Maps(r, "match")
	if len(ms) == 0 {
		return []string{section + " *"}
	}
	var out []string
	for _, mt := range ms {
		var parts []string
		switch section {
		case "http":
			for _, k := range []string{"prefix", "exact", "regex"} {
				if v := field.String(mt, "uri", k); v != "" {
					parts = append(parts, "uri "+k+" "+v)
				}
			}
			for name, h := range field.Map(mt, "headers") {
				for k, v := range field.StringMap(h) {
					parts = append(parts, "header "+name+" "+k+" "+v)
				}
			}
		case "tls":
			if sni := field.Strings(mt, "sniHosts"); len(sni) > 0 {
				parts = append(parts, "sni "+strings.Join(sni, ","))
			}
		}
		if p, ok := field.Int(mt, "port"); ok {
			parts = append(parts, fmt.Sprintf("port %d", p))
		}
		if len(parts) == 0 {
			parts = []string{section + " *"}
		}
		sortStrings(parts)
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

// serverHostsMatch reports whether a server of gw lists a host (as
// "host", "ns/host", "./host" or "*/host") matching one of hosts.
func serverHostsMatch(gw *manifest.Object, vsNS string, hosts []string) bool {
	for _, s := range field.Maps(gw.Body, "spec", "servers") {
		for _, sh := range field.Strings(s, "hosts") {
			if ns, h, ok := strings.Cut(sh, "/"); ok {
				if ns != "*" && ns != vsNS && (ns != "." || gw.Namespace != vsNS) {
					continue
				}
				sh = h
			}
			for _, h := range hosts {
				if hostMatches(sh, h) || hostMatches(h, sh) {
					return true
				}
			}
		}
	}
	return false
}

func hostMatches(pattern, host string) bool {
	return pattern == "*" || pattern == host || (strings.HasPrefix(pattern, "*.") && strings.HasSuffix(host, pattern[1:]))
}
