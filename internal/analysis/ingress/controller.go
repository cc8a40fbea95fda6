package ingress

import (
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// controller names the Ingress controller an Ingress is written for, as far
// as its class (and the IngressClass's spec.controller, when rendered)
// tells. The analyzers apply each controller's documented semantics; see
// the table in docs/analysis.md.
type controller int

const (
	controllerOther   controller = iota
	controllerALB                // AWS Load Balancer Controller
	controllerGKE                // GKE Ingress (gce, gce-internal)
	controllerNginx              // ingress-nginx (and NGINX Inc's, class nginx)
	controllerTraefik            // Traefik's Kubernetes Ingress provider
	controllerHAProxy            // HAProxy Technologies' and haproxy-ingress
)

// IngressClass spec.controller values, as each controller's docs give them.
var controllerNames = map[string]controller{
	"ingress.k8s.aws/alb":                    controllerALB,
	"eks.amazonaws.com/alb":                  controllerALB,
	"k8s.io/ingress-nginx":                   controllerNginx,
	"nginx.org/ingress-controller":           controllerNginx,
	"traefik.io/ingress-controller":          controllerTraefik,
	"haproxy.org/ingress-controller/haproxy": controllerHAProxy,
	"haproxy-ingress.github.io/controller":   controllerHAProxy,
}

// Conventional class names, for when the IngressClass is not rendered.
var classNames = map[string]controller{
	"alb": controllerALB, "gce": controllerGKE, "gce-internal": controllerGKE,
	"nginx": controllerNginx, "traefik": controllerTraefik, "haproxy": controllerHAProxy,
}

// Annotations the analyzers read, by controller.
const (
	albGroupName     = "alb.ingress.kubernetes.io/group.name"
	albActionPrefix  = "alb.ingress.kubernetes.io/actions."
	albConditionPref = "alb.ingress.kubernetes.io/conditions."
	albUseAnnotation = "use-annotation"

	nginxCanary         = "nginx.ingress.kubernetes.io/canary"
	nginxDefaultBackend = "nginx.ingress.kubernetes.io/default-backend"

	traefikEntrypoints = "traefik.ingress.kubernetes.io/router.entrypoints"
	traefikPriority    = "traefik.ingress.kubernetes.io/router.priority"

	haproxyRouteACL = "haproxy.org/route-acl"
)

// controllerOf returns the controller an Ingress's class points at: the
// rendered IngressClass's spec.controller, else the conventional class
// name, else the controller whose annotations the Ingress carries.
func controllerOf(c *analysis.Context, ing *manifest.Object) controller {
	class := className(ing)
	if class == "" {
		class = defaultClass(c)
	}
	if ic, scope := c.Resolve(manifest.Key{Group: Group, Kind: "IngressClass", Name: class}); scope.Found() {
		if ctl, ok := controllerNames[field.String(ic.Body, "spec", "controller")]; ok {
			return ctl
		}
	}
	if ctl, ok := classNames[class]; ok {
		return ctl
	}
	for k := range ing.Annotations() {
		if strings.HasPrefix(k, "alb.ingress.kubernetes.io/") {
			return controllerALB
		}
	}
	return controllerOther
}

// albGroup returns the IngressGroup an ALB Ingress joins: the group.name
// annotation, else the group of its IngressClass's IngressClassParams
// (when both are rendered), else "" (the Ingress is a load balancer of its
// own).
func albGroup(c *analysis.Context, ing *manifest.Object) string {
	if g := ing.Annotations()[albGroupName]; g != "" {
		return g
	}
	class := className(ing)
	if class == "" {
		class = defaultClass(c)
	}
	ic, scope := c.Resolve(manifest.Key{Group: Group, Kind: "IngressClass", Name: class})
	if !scope.Found() || field.String(ic.Body, "spec", "parameters", "kind") != "IngressClassParams" {
		return ""
	}
	params, scope := c.Resolve(manifest.Key{Group: "elbv2.k8s.aws", Kind: "IngressClassParams",
		Name: field.String(ic.Body, "spec", "parameters", "name")})
	if !scope.Found() {
		return ""
	}
	return field.String(params.Body, "spec", "group", "name")
}

// claimScope is the part of a host+path claim that tells apart Ingresses
// whose equal host+path do not compete, per controller: separate ALB or
// GKE load balancers, Traefik routers on other entrypoints or with set
// priorities, HAProxy routes under an ACL. ok is false when the Ingress
// takes part in no competition at all (an ingress-nginx canary, which
// shares its main Ingress's host+path by design).
func claimScope(c *analysis.Context, ing *manifest.Object) (scope string, ok bool) {
	a := ing.Annotations()
	own := "own load balancer " + c.Namespace(ing) + "/" + ing.Name
	switch controllerOf(c, ing) {
	case controllerALB:
		if g := albGroup(c, ing); g != "" {
			return "alb group " + g, true
		}
		return own, true
	case controllerGKE:
		return own, true
	case controllerTraefik:
		eps := strings.Split(strings.ReplaceAll(a[traefikEntrypoints], " ", ""), ",")
		slices.Sort(eps)
		return "entrypoints " + strings.Join(eps, ",") + " priority " + strings.TrimSpace(a[traefikPriority]), true
	case controllerHAProxy:
		return "acl " + strings.TrimSpace(a[haproxyRouteACL]), true
	}
	if strings.EqualFold(strings.TrimSpace(a[nginxCanary]), "true") {
		return "", false
	}
	return "", true
}

// pathScope adds what makes one path of an Ingress conditional: an ALB
// conditions annotation for the path's backend, or an HAProxy route ACL on
// the backend Service.
func pathScope(c *analysis.Context, ing *manifest.Object, backend map[string]any) string {
	name := field.String(backend, "service", "name")
	if name == "" {
		return ""
	}
	if cond, ok := ing.Annotations()[albConditionPref+name]; ok {
		return " conditions " + cond
	}
	svc, scope := c.Resolve(manifest.Key{Kind: "Service", Namespace: c.Namespace(ing), Name: name})
	if scope.Found() {
		if acl := svc.Annotations()[haproxyRouteACL]; acl != "" {
			return " acl " + acl
		}
	}
	return ""
}
