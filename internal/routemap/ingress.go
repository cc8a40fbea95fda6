package routemap

import (
	"fmt"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/routing"
)

// ingresses adds the entries and TLS hosts of every Ingress, under its
// class (spec.ingressClassName, else the kubernetes.io/ingress.class
// annotation, else the cluster's default class).
func ingresses(c *analysis.Context, m *Map) {
	for _, group := range []string{routing.IngressGroup, "extensions"} {
		for _, o := range c.Objects().ByKind(group, "Ingress") {
			class := field.String(o.Body, "spec", "ingressClassName")
			if class == "" {
				class = o.Annotations()["kubernetes.io/ingress.class"]
			}
			if class == "" {
				class = "(default)"
			}
			parent := "Ingress class " + class
			m.Parents = append(m.Parents, Parent{Name: parent, Detail: "Ingress"})
			ns := c.Namespace(o)
			route := "Ingress " + qualified(ns, o.Name)
			if d := field.Map(o.Body, "spec", "defaultBackend"); d != nil {
				m.Entries = append(m.Entries, Entry{Parent: parent, Host: "*", Match: "(default backend)", Route: route,
					Backends: []Backend{{Name: ingressBackend(ns, d), Weight: 100}}})
			}
			for _, rule := range field.Maps(o.Body, "spec", "rules") {
				host := field.String(rule, "host")
				if host == "" {
					host = "*"
				}
				for _, p := range field.Maps(rule, "http", "paths") {
					typ := field.String(p, "pathType")
					if typ == "" {
						typ = "ImplementationSpecific"
					}
					path := field.String(p, "path")
					if path == "" {
						path = "/"
					}
					m.Entries = append(m.Entries, Entry{Parent: parent, Host: host, Match: typ + " " + path, Route: route,
						Backends: []Backend{{Name: ingressBackend(ns, field.Map(p, "backend")), Weight: 100}}})
				}
			}
			for _, t := range field.Maps(o.Body, "spec", "tls") {
				cert := "Secret " + ns + "/" + field.String(t, "secretName")
				if field.String(t, "secretName") == "" {
					cert = "(controller default certificate)"
				}
				hosts := field.Strings(t, "hosts")
				if len(hosts) == 0 {
					hosts = []string{"*"}
				}
				for _, h := range hosts {
					m.TLS = append(m.TLS, TLSHost{Parent: parent, Host: h, Certificate: cert})
				}
			}
		}
	}
}

// ingressBackend renders a networking.k8s.io/v1 (or extensions/v1beta1)
// Ingress backend.
func ingressBackend(ns string, b map[string]any) string {
	if r := field.Map(b, "resource"); r != nil {
		return field.String(r, "kind") + " " + ns + "/" + field.String(r, "name")
	}
	name := field.String(b, "service", "name")
	if name == "" {
		name = field.String(b, "serviceName") // extensions/v1beta1
	}
	out := "Service " + ns + "/" + name
	if p, ok := field.Int(b, "service", "port", "number"); ok {
		out += fmt.Sprintf(":%d", p)
	} else if p := field.String(b, "service", "port", "name"); p != "" {
		out += ":" + p
	} else if p, ok := field.Int(b, "servicePort"); ok {
		out += fmt.Sprintf(":%d", p)
	}
	return out
}
