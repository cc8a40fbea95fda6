package ingress

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Backends checks that every Ingress backend (rules and defaultBackend)
// names an existing Service and one of its ports, by number or by name.
type Backends struct{}

// Metadata implements analysis.Analyzer.
func (Backends) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "ingress.Backends",
		Description: "Checks that Ingress backends and defaultBackends name existing Services and ports (by number or name), AWS Load Balancer Controller action backends (use-annotation) and the Services their forward actions name, and ingress-nginx's default-backend annotation.",
		Doc:         "Backends and `defaultBackend` name an existing Service and one of its ports, by number or by name; AWS Load Balancer Controller action backends (`port.name: use-annotation`) have their `alb.ingress.kubernetes.io/actions.<service.name>` annotation, valid JSON (`RG2007`), and the Services its forward target groups name exist with the ports; ingress-nginx's `default-backend` annotation names an existing Service.",
		Inputs:      []manifest.GroupKind{ingressInput, {Kind: "Service"}, rolloutGK},
	}
}

// Analyze implements analysis.Analyzer.
func (Backends) Analyze(ctx context.Context, c *analysis.Context) error {
	for _, ing := range ingresses(c) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if b := field.Map(ing.Body, "spec", "defaultBackend"); b != nil {
			checkBackend(c, ing, "defaultBackend", b)
		}
		if name := strings.TrimSpace(ing.Annotations()[nginxDefaultBackend]); name != "" {
			checkService(c, ing, "annotation "+nginxDefaultBackend, name, nil)
		}
		for _, rule := range field.Maps(ing.Body, "spec", "rules") {
			host := field.String(rule, "host")
			if host == "" {
				host = "*"
			}
			for _, p := range field.Maps(rule, "http", "paths") {
				where := fmt.Sprintf("backend of %s%s", host, field.String(p, "path"))
				checkBackend(c, ing, where, field.Map(p, "backend"))
			}
		}
	}
	return nil
}

func checkBackend(c *analysis.Context, ing *manifest.Object, where string, b map[string]any) {
	svc := field.Map(b, "service")
	name := field.String(svc, "name")
	if name == "" {
		return // a resource backend, or malformed (the schema analyzer reports that)
	}
	if field.String(svc, "port", "name") == albUseAnnotation {
		checkALBAction(c, ing, where, name)
		return
	}
	var port any
	if num, ok := field.Int(svc, "port", "number"); ok {
		port = num
	} else if pname := field.String(svc, "port", "name"); pname != "" {
		port = pname
	}
	checkService(c, ing, where, name, port)
}

// checkService checks that Service name exists in the Ingress's namespace
// and, when port is an int64 (a number) or a string (a name), has it.
func checkService(c *analysis.Context, ing *manifest.Object, where, name string, port any) {
	ns := c.Namespace(ing)
	key := manifest.Key{Kind: "Service", Namespace: ns, Name: name}
	o, scope := c.Resolve(key)
	switch scope {
	case analysis.ScopeOutside:
		c.ReportOutside(ing, where, key)
		return
	case analysis.ScopeMissing:
		c.ReportCode(ing, analysis.CodeIngressNoService, where, ns+"/"+name)
		return
	}
	if field.String(o.Body, "spec", "type") == "ExternalName" {
		// Controllers send an ExternalName Service's traffic to its host at
		// the Ingress's port number as written (ingress-nginx: "ExternalName
		// without port"); a port name needs the Service to list it.
		if _, named := port.(string); !named || len(field.Maps(o.Body, "spec", "ports")) == 0 {
			return
		}
	}
	switch p := port.(type) {
	case int64:
		for _, sp := range field.Maps(o.Body, "spec", "ports") {
			if n, _ := field.Int(sp, "port"); n == p {
				return
			}
		}
		c.ReportCode(ing, analysis.CodeIngressNoPort, where, strconv.FormatInt(int64(p), 10), ns+"/"+name, ports(o))
	case string:
		for _, sp := range field.Maps(o.Body, "spec", "ports") {
			if field.String(sp, "name") == p {
				return
			}
		}
		c.ReportCode(ing, analysis.CodeIngressNoPort, where, strconv.Quote(p), ns+"/"+name, ports(o))
	}
}

func ports(svc *manifest.Object) string {
	s := ""
	for _, p := range field.Maps(svc.Body, "spec", "ports") {
		n, _ := field.Int(p, "port")
		if s != "" {
			s += ", "
		}
		s += fmt.Sprint(n)
		if name := field.String(p, "name"); name != "" {
			s += " (" + name + ")"
		}
	}
	if s == "" {
		return "none"
	}
	return s
}
