package ingress

import (
	"context"
	"sort"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// DuplicatePaths finds two Ingresses of the same class claiming the same
// host, path and path type: which one serves depends on the controller.
// Claims that do not compete under the controller's documented semantics
// are not duplicates: ALB Ingresses outside a shared IngressGroup and GKE
// Ingresses are load balancers of their own, an ingress-nginx canary
// shares its main Ingress's host+path, Traefik routers on other
// entrypoints or with set priorities and HAProxy routes under an ACL are
// told apart by the controller (controller.go).
type DuplicatePaths struct{}

// Metadata implements analysis.Analyzer.
func (DuplicatePaths) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "ingress.DuplicatePaths",
		Description: "Finds two Ingresses of the same class claiming the same host and path where their controller makes them compete (not separate ALB or GKE load balancers, ingress-nginx canaries, other Traefik entrypoints or HAProxy ACLs).",
		Doc:         "Two Ingresses of the same class claim the same host + path + pathType where their controller makes them compete (table below).",
		Inputs: []manifest.GroupKind{ingressInput, {Group: Group, Kind: "IngressClass"},
			{Group: "elbv2.k8s.aws", Kind: "IngressClassParams"}, {Kind: "Service"}},
	}
}

// pathClaim is one host+path an Ingress claims; scope tells apart claims
// that do not compete under the controller's semantics (claimScope).
type pathClaim struct{ class, scope, host, path, pathType string }

// Analyze implements analysis.Analyzer.
func (DuplicatePaths) Analyze(ctx context.Context, c *analysis.Context) error {
	claims := map[pathClaim][]*manifest.Object{}
	var order []pathClaim
	for _, ing := range ingresses(c) {
		if err := ctx.Err(); err != nil {
			return err
		}
		class := className(ing)
		if class == "" {
			class = defaultClass(c)
		}
		scope, competes := claimScope(c, ing)
		if !competes {
			continue
		}
		mine := map[pathClaim]bool{}
		for _, rule := range field.Maps(ing.Body, "spec", "rules") {
			for _, p := range field.Maps(rule, "http", "paths") {
				path := field.String(p, "path")
				if path == "" {
					path = "/"
				}
				cl := pathClaim{class, scope + pathScope(c, ing, field.Map(p, "backend")), field.String(rule, "host"), path, field.String(p, "pathType")}
				if mine[cl] {
					continue
				}
				mine[cl] = true
				if _, ok := claims[cl]; !ok {
					order = append(order, cl)
				}
				claims[cl] = append(claims[cl], ing)
			}
		}
	}
	for _, cl := range order {
		objs := claims[cl]
		if len(objs) < 2 {
			continue
		}
		sort.SliceStable(objs, func(i, j int) bool {
			return c.Namespace(objs[i])+"/"+objs[i].Name < c.Namespace(objs[j])+"/"+objs[j].Name
		})
		host, class := cl.host, cl.class
		if host == "" {
			host = "(any host)"
		}
		if class == "" {
			class = "(default)"
		}
		for _, o := range objs[1:] {
			c.ReportCode(o, analysis.CodeIngressDuplicatePath, host, cl.path, cl.pathType, c.Ref(objs[0]).String(), class)
		}
	}
	return nil
}
