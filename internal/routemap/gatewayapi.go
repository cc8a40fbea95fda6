package routemap

import (
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/gatewayapi"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/routing"
)

// gatewayAPI adds the listeners of Gateways and ListenerSets, the entries
// and attachments of every Gateway API route, and the ReferenceGrants.
func gatewayAPI(c *analysis.Context, m *Map) {
	for _, kind := range []string{"Gateway", "ListenerSet"} {
		for _, gw := range c.Objects().ByKind(routing.GatewayAPIGroup, kind) {
			for _, l := range gatewayapi.ListenersOf(c, gw) {
				name := listenerName(c, gw, l.Name)
				detail := fmt.Sprintf("%s :%d", l.Protocol, l.Port)
				if l.Hostname != "" {
					detail += " " + l.Hostname
				}
				m.Parents = append(m.Parents, Parent{Name: name, Detail: detail})
				host := l.Hostname
				if host == "" {
					host = "*"
				}
				if l.TLSMode == "Passthrough" {
					m.TLS = append(m.TLS, TLSHost{Parent: name, Host: host, Certificate: "passthrough"})
				}
				for _, cert := range l.Certificates {
					m.TLS = append(m.TLS, TLSHost{Parent: name, Host: host, Certificate: cert})
				}
			}
		}
	}
	backends := backendsByRule(c)
	for _, gk := range routing.GatewayAPIRoutes {
		for _, r := range c.Objects().ByKind(gk.Group, gk.Kind) {
			route := r.Kind + " " + qualified(c.Namespace(r), r.Name)
			var parents []string
			for _, a := range gatewayapi.Attachments(c, r) {
				att := Attachment{Route: route}
				switch {
				case a.Group == "" && a.Kind == "Service":
					att.Parent, att.State = "mesh Service "+qualified(a.Namespace, a.Name), Attached
					if a.Code != "" {
						att.State, att.Reason = Detached, a.Reason
					} else {
						parents = append(parents, att.Parent)
					}
				case a.Parent != nil && len(a.Listeners) > 0:
					att.Parent, att.State = a.Kind+" "+qualified(a.Namespace, a.Name), Attached
					for _, l := range a.Listeners {
						att.Listeners = append(att.Listeners, l.Name)
						parents = append(parents, listenerName(c, a.Parent, l.Name))
					}
				case a.Code != "":
					att.Parent, att.State, att.Reason = a.Kind+" "+qualified(a.Namespace, a.Name), Detached, a.Reason
				default:
					// Not rendered here: its listeners are not known.
					att.Parent, att.State = a.Kind+" "+qualified(a.Namespace, a.Name), Unknown
					if why := c.UnrenderedReason(manifest.Key{Group: a.Group, Kind: a.Kind, Namespace: a.Namespace, Name: a.Name}); why != "" {
						att.Reason = "cannot be checked: it may be among what was not built (" + why + ")"
					}
					if a.SectionName != "" {
						att.Listeners = []string{a.SectionName}
					}
					parents = append(parents, att.Parent+sectionSuffix(a.SectionName))
				}
				m.Attachments = append(m.Attachments, att)
			}
			hosts := field.Strings(r.Body, "spec", "hostnames")
			if len(hosts) == 0 {
				hosts = []string{"*"}
			}
			for i, rule := range field.Maps(r.Body, "spec", "rules") {
				bs := backends[ruleKey{r, i}]
				if len(bs) == 0 {
					bs = redirects(rule)
				}
				for _, match := range ruleMatches(r.Kind, rule) {
					for _, p := range parents {
						for _, h := range hosts {
							m.Entries = append(m.Entries, Entry{Parent: p, Host: h, Match: match, Route: route, Backends: bs})
						}
					}
				}
			}
		}
	}
	for _, g := range c.Objects().ByKind(routing.GatewayAPIGroup, "ReferenceGrant") {
		name := "ReferenceGrant " + qualified(c.Namespace(g), g.Name)
		for _, f := range field.Maps(g.Body, "spec", "from") {
			from := field.String(f, "kind") + " in " + field.String(f, "namespace")
			for _, t := range field.Maps(g.Body, "spec", "to") {
				to := field.String(t, "kind") + " " + c.Namespace(g) + "/" + orStar(field.String(t, "name"))
				m.Grants = append(m.Grants, Grant{Grant: name, From: from, To: to})
			}
		}
	}
}

func listenerName(c *analysis.Context, gw *manifest.Object, listener string) string {
	return gw.Kind + " " + qualified(c.Namespace(gw), gw.Name) + sectionSuffix(listener)
}

func sectionSuffix(s string) string {
	if s == "" {
		return ""
	}
	return " listener " + s
}

func orStar(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

type ruleKey struct {
	o    *manifest.Object
	rule int
}

// backendsByRule reads the backends of every Gateway API route rule through
// routing.WeightedLists, the walker the traffic transforms share.
func backendsByRule(c *analysis.Context) map[ruleKey][]Backend {
	out := map[ruleKey][]Backend{}
	for _, l := range routing.WeightedLists(c.Objects()) {
		if !routing.IsGatewayAPIRoute(l.Object) {
			continue
		}
		var i int
		if _, err := fmt.Sscanf(l.Path, "spec.rules[%d].backendRefs", &i); err != nil {
			continue
		}
		var bs []Backend
		for _, b := range l.Entries {
			kind := field.String(b.Item, "kind")
			if kind == "" {
				kind = "Service"
			}
			ns := field.String(b.Item, "namespace")
			if ns == "" {
				ns = c.Namespace(l.Object)
			}
			name := kind + " " + ns + "/" + b.Service
			if p, ok := field.Int(b.Item, "port"); ok {
				name += fmt.Sprintf(":%d", p)
			}
			bs = append(bs, Backend{Name: name, Weight: b.Weight})
		}
		out[ruleKey{l.Object, i}] = bs
	}
	return out
}

// ruleMatches renders the matches of one rule, one string each.
func ruleMatches(kind string, rule map[string]any) []string {
	matches := field.Maps(rule, "matches")
	switch kind {
	case "HTTPRoute":
		if len(matches) == 0 {
			return []string{"PathPrefix /"}
		}
		var out []string
		for _, mt := range matches {
			typ, val := field.String(mt, "path", "type"), field.String(mt, "path", "value")
			if typ == "" {
				typ = "PathPrefix"
			}
			if val == "" {
				val = "/"
			}
			parts := []string{typ + " " + val}
			if meth := field.String(mt, "method"); meth != "" {
				parts = append(parts, "method "+meth)
			}
			parts = append(parts, pairs("header", field.Maps(mt, "headers"))...)
			parts = append(parts, pairs("query", field.Maps(mt, "queryParams"))...)
			out = append(out, strings.Join(parts, " "))
		}
		return out
	case "GRPCRoute":
		if len(matches) == 0 {
			return []string{"grpc *"}
		}
		var out []string
		for _, mt := range matches {
			parts := []string{"grpc " + orStar(field.String(mt, "method", "service")) + "/" + orStar(field.String(mt, "method", "method"))}
			parts = append(parts, pairs("header", field.Maps(mt, "headers"))...)
			out = append(out, strings.Join(parts, " "))
		}
		return out
	}
	return []string{strings.ToLower(strings.TrimSuffix(kind, "Route")) + " *"}
}

func pairs(what string, ms []map[string]any) []string {
	var out []string
	for _, h := range ms {
		op := "="
		if field.String(h, "type") == "RegularExpression" {
			op = "~"
		}
		out = append(out, what+" "+field.String(h, "name")+op+field.String(h, "value"))
	}
	return out
}

// redirects renders a rule's RequestRedirect filter as its destination
// (a rule that redirects has no backends).
func redirects(rule map[string]any) []Backend {
	for _, f := range field.Maps(rule, "filters") {
		rr := field.Map(f, "requestRedirect")
		if field.String(f, "type") != "RequestRedirect" || rr == nil {
			continue
		}
		var parts []string
		if s := field.String(rr, "scheme"); s != "" {
			parts = append(parts, s)
		}
		if h := field.String(rr, "hostname"); h != "" {
			parts = append(parts, h)
		}
		if p := field.String(rr, "path", "replaceFullPath") + field.String(rr, "path", "replacePrefixMatch"); p != "" {
			parts = append(parts, p)
		}
		code, ok := field.Int(rr, "statusCode")
		if !ok {
			code = 302
		}
		return []Backend{{Name: "redirect " + strings.Join(append(parts, fmt.Sprint(code)), " "), Weight: 100}}
	}
	return nil
}
