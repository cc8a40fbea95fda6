package analysis

import "sort"

// Code is one entry of the catalog. Codes never change meaning once
// released; a retired code stays in the catalog with Retired set.
type Code struct {
	ID          string
	Severity    Severity // default severity
	Title       string   // short name
	Description string   // what the finding means and how to fix it
	Retired     bool
}

// Catalog codes. RG0xxx general, RG1xxx Gateway API, RG2xxx Ingress,
// RG3xxx Istio routing (checks Istio does not do offline), RG4xxx policy.
const (
	CodeUnresolvedOutside = "RG0001"
	CodeMalformed         = "RG0002"
	CodeUnknownField      = "RG0003"
	CodeEmptySpec         = "RG0004"
	CodeRendersNothing    = "RG0005"
	CodeNothingChecked    = "RG0006"
	CodeAppNotRendered    = "RG0007"

	CodeParentNotFound       = "RG1001"
	CodeParentNoSection      = "RG1002"
	CodeParentNoPort         = "RG1003"
	CodeParentProtocol       = "RG1004"
	CodeParentNamespace      = "RG1005"
	CodeParentKind           = "RG1006"
	CodeParentHostname       = "RG1007"
	CodeRouteNoParents       = "RG1008"
	CodeBackendNotFound      = "RG1101"
	CodeBackendNoPort        = "RG1102"
	CodeBackendNoGrant       = "RG1103"
	CodeBackendZeroWeight    = "RG1104"
	CodeBackendPortMissing   = "RG1105"
	CodeListenerDuplicate    = "RG1201"
	CodeListenerConflict     = "RG1202"
	CodeListenerNoCert       = "RG1203"
	CodeCertificateNoGrant   = "RG1204"
	CodeRouteConflict        = "RG1301"
	CodeIngressNoService     = "RG2001"
	CodeIngressNoPort        = "RG2002"
	CodeIngressDuplicatePath = "RG2003"
	CodeIngressTLSHost       = "RG2004"
	CodeIngressNoClass       = "RG2005"
	CodeIngressClassAnnot    = "RG2006"
	CodeVirtualServiceSubset = "RG3001"
	CodeVirtualServiceWeight = "RG3002"
	CodePlainSecret          = "RG4001"
	CodeMutableImage         = "RG4002"
	CodeCRDOrdering          = "RG4003"
)

var catalog = []Code{
	{ID: CodeUnresolvedOutside, Severity: SeverityWarning, Title: "reference cannot be checked",
		Description: "An object refers to an object in a namespace this app does not render, so routeguard cannot tell whether it exists. Name the path that renders that namespace in contextPaths of .routeguard.yaml, or suppress the finding for this object."},
	{ID: CodeMalformed, Severity: SeverityError, Title: "object does not decode as its kind",
		Description: "A field has the wrong type (for example a string where a list belongs); the API server rejects the object. Fix the field's type."},
	{ID: CodeUnknownField, Severity: SeverityError, Title: "unknown field",
		Description: "The object has a field its kind does not define (often a typo or a wrong indentation); kubectl and Argo CD reject it with strict field validation. Remove or correct the field."},
	{ID: CodeEmptySpec, Severity: SeverityError, Title: "empty spec",
		Description: "The object has no spec, or a spec without the fields its kind requires. Fill in the spec."},
	{ID: CodeRendersNothing, Severity: SeverityWarning, Title: "app renders no objects",
		Description: "An app (an Argo CD Application, or a directory) renders no objects, so there was nothing to check and the reconciler would apply nothing (with automated pruning it deletes what the app deployed before). Check the source path, the include/exclude globs and the files' extensions."},
	{ID: CodeNothingChecked, Severity: SeverityWarning, Title: "no routing object checked",
		Description: "The run rendered no routing object (no Ingress, Gateway API Gateway or route, Istio VirtualService, Gateway, DestinationRule or ServiceEntry), so a clean result means nothing. Check what was rendered and the paths given."},
	{ID: CodeAppNotRendered, Severity: SeverityError, Title: "app does not render",
		Description: "An app (an Argo CD Application or ApplicationSet) cannot be rendered from the repository: its source path does not exist, its chart or kustomization fails, its generator is wrong. The reconciler would fail on it too (Argo CD: a ComparisonError). Its namespaces cannot be checked until it renders. Fix what the message names."},

	{ID: CodeParentNotFound, Severity: SeverityError, Title: "parent Gateway not found",
		Description: "A route's parentRef names a Gateway that does not exist. Fix the name or namespace, or add the Gateway."},
	{ID: CodeParentNoSection, Severity: SeverityError, Title: "parentRef sectionName names no listener",
		Description: "A route's parentRef sectionName matches no listener of the Gateway. Use one of the Gateway's listener names."},
	{ID: CodeParentNoPort, Severity: SeverityError, Title: "parentRef port matches no listener",
		Description: "A route's parentRef port matches no listener of the Gateway. Use a listener's port or drop the port."},
	{ID: CodeParentProtocol, Severity: SeverityError, Title: "listener protocol does not fit the route kind",
		Description: "The listeners a route's parentRef selects speak a protocol that does not carry this route kind (HTTPRoute needs HTTP/HTTPS, GRPCRoute HTTP/HTTPS, TLSRoute TLS, TCPRoute TCP)."},
	{ID: CodeParentNamespace, Severity: SeverityError, Title: "listener does not admit routes from this namespace",
		Description: "The Gateway's listeners' allowedRoutes.namespaces (Same, All, Selector) do not admit the route's namespace. Move the route, or widen allowedRoutes."},
	{ID: CodeParentKind, Severity: SeverityError, Title: "listener does not admit this route kind",
		Description: "The Gateway's listeners' allowedRoutes.kinds do not include this route's kind."},
	{ID: CodeParentHostname, Severity: SeverityError, Title: "route hostnames do not intersect the listener's",
		Description: "None of the route's hostnames matches the hostname of a listener it could attach to, so the route attaches nowhere. Align the hostnames."},
	{ID: CodeRouteNoParents, Severity: SeverityError, Title: "route has no parentRefs",
		Description: "A route without parentRefs attaches to no Gateway and receives no traffic. Add a parentRef."},
	{ID: CodeBackendNotFound, Severity: SeverityError, Title: "backend Service not found",
		Description: "A route's backendRef names a Service that does not exist; requests to it fail with 500. Fix the name or namespace, or add the Service."},
	{ID: CodeBackendNoPort, Severity: SeverityError, Title: "backend Service has no such port",
		Description: "A route's backendRef port is not a port of the Service. Use one of the Service's ports."},
	{ID: CodeBackendNoGrant, Severity: SeverityError, Title: "cross-namespace backendRef without ReferenceGrant",
		Description: "A route refers to a backend in another namespace, and no ReferenceGrant in that namespace admits it. Add a ReferenceGrant there (from the route's kind and namespace, to Service)."},
	{ID: CodeBackendZeroWeight, Severity: SeverityWarning, Title: "all backends weigh 0",
		Description: "Every backendRef of a rule has weight 0, so the rule sends no traffic (clients get 500). Give one backend a positive weight."},
	{ID: CodeBackendPortMissing, Severity: SeverityError, Title: "Service backendRef without port",
		Description: "A backendRef to a Service must name a port. Add the port."},
	{ID: CodeListenerDuplicate, Severity: SeverityError, Title: "duplicate listener name",
		Description: "Two listeners of a Gateway share a name; sectionName cannot tell them apart and the Gateway is invalid. Rename one."},
	{ID: CodeListenerConflict, Severity: SeverityError, Title: "listeners collide",
		Description: "Two listeners of a Gateway share port, protocol and hostname; they are Conflicted and one of them does not serve. Give them distinct hostnames or ports."},
	{ID: CodeListenerNoCert, Severity: SeverityError, Title: "TLS-terminating listener without certificate",
		Description: "An HTTPS listener, or a TLS listener in Terminate mode, has no tls.certificateRefs; it cannot serve. Add a certificateRef."},
	{ID: CodeCertificateNoGrant, Severity: SeverityError, Title: "cross-namespace certificateRef without ReferenceGrant",
		Description: "A Gateway refers to a certificate Secret in another namespace, and no ReferenceGrant there admits it. Add a ReferenceGrant (from Gateway in the Gateway's namespace, to Secret)."},
	{ID: CodeRouteConflict, Severity: SeverityError, Title: "routes claim the same hostname and match",
		Description: "Two routes attached to the same listener claim the same hostname and the same match; the one that loses precedence (the newer, or the later by namespace/name) never receives traffic. Remove one or make the matches differ."},

	{ID: CodeIngressNoService, Severity: SeverityError, Title: "Ingress backend Service not found",
		Description: "An Ingress backend (or defaultBackend) names a Service that does not exist. Fix the name or add the Service."},
	{ID: CodeIngressNoPort, Severity: SeverityError, Title: "Ingress backend Service has no such port",
		Description: "An Ingress backend names a port (by number or name) that the Service does not have. Use one of the Service's ports."},
	{ID: CodeIngressDuplicatePath, Severity: SeverityError, Title: "host and path claimed twice",
		Description: "Two Ingresses of the same class claim the same host and path; which one wins depends on the controller. Remove one of the rules."},
	{ID: CodeIngressTLSHost, Severity: SeverityWarning, Title: "TLS host not covered by a rule",
		Description: "An Ingress lists a TLS host that none of its rules serves. Add a rule for the host, or remove it from tls.hosts."},
	{ID: CodeIngressNoClass, Severity: SeverityWarning, Title: "Ingress without class",
		Description: "An Ingress has no ingressClassName and no IngressClass is marked default (ingressclass.kubernetes.io/is-default-class); no controller may pick it up. Set spec.ingressClassName."},
	{ID: CodeIngressClassAnnot, Severity: SeverityWarning, Title: "deprecated ingress class annotation",
		Description: "The kubernetes.io/ingress.class annotation is deprecated; use spec.ingressClassName."},

	{ID: CodeVirtualServiceSubset, Severity: SeverityError, Title: "VirtualService subset not defined",
		Description: "A VirtualService route destination names a subset that no DestinationRule for that host defines; Envoy has no cluster for it and requests fail with 503. Add the subset to the DestinationRule or fix the name."},
	{ID: CodeVirtualServiceWeight, Severity: SeverityWarning, Title: "route weights do not sum to 100",
		Description: "The weights of a VirtualService route's destinations do not add up to 100; Istio scales them proportionally, so the split is not what it reads as (a destination without weight gets 0). Make them sum to 100."},

	{ID: CodePlainSecret, Severity: SeverityWarning, Title: "plain Secret in the rendered output",
		Description: "A Secret with data is committed to Git in plain (base64) form. Use Sealed Secrets or External Secrets instead."},
	{ID: CodeMutableImage, Severity: SeverityWarning, Title: "mutable container image",
		Description: "A container image uses :latest or no tag or digest, so what runs changes without a change in Git. Pin a tag or a digest."},
	{ID: CodeCRDOrdering, Severity: SeverityWarning, Title: "CRD and its resources not ordered",
		Description: "An app renders a CustomResourceDefinition and resources of that kind without an Argo CD sync wave that applies the CRD first; the first sync can fail. Give the CRD a lower argocd.argoproj.io/sync-wave than its resources."},
}

var catalogByID = func() map[string]Code {
	m := make(map[string]Code, len(catalog))
	for _, c := range catalog {
		m[c.ID] = c
	}
	return m
}()

// Catalog returns every code, sorted by ID.
func Catalog() []Code {
	out := append([]Code(nil), catalog...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// LookupCode returns the catalog entry for id.
func LookupCode(id string) (Code, bool) {
	c, ok := catalogByID[id]
	return c, ok
}
