package analysis

import "sort"

// Code is one entry of the catalog. Codes never change meaning once
// released; a retired code stays in the catalog with Retired set.
type Code struct {
	ID          string
	Severity    Severity // default severity
	Title       string   // short name
	Description string   // what the finding means and how to fix it
	// Message is the template of its findings' messages (zero: each site
	// writes its own, see templates.go).
	Message Template
	Retired bool
}

// Catalog codes. RG0xxx general, RG1xxx Gateway API, RG2xxx Ingress,
// RG3xxx Istio routing (checks Istio does not do offline), RG4xxx policy,
// RG5xxx what the API server would reject (validation).
const (
	CodeUnresolvedOutside = "RG0001"
	CodeMalformed         = "RG0002"
	CodeUnknownField      = "RG0003"
	CodeEmptySpec         = "RG0004"
	CodeRefKindInvalid    = "RG0005"
	CodeRefKindUnknown    = "RG0006"
	CodeRendersNothing    = "RG0007"
	CodeAppNotRendered    = "RG0009"
	CodeRepeatedObject    = "RG0010"

	// RG01xx: building a GitOps tree (Flux today; the Argo CD repository
	// build reuses RG0100).
	CodeNothingChecked    = "RG0100"
	CodeFluxBuildFailed   = "RG0101"
	CodeHelmReleaseFailed = "RG0102"
	CodeDependsOnCycle    = "RG0103"
	CodeDependsOnMissing  = "RG0104"
	CodeAppliedTwice      = "RG0105"
	CodeNotBuilt          = "RG0106"
	CodeClusterOnlySource = "RG0107"
	CodeResourceSetFailed = "RG0108"
	CodeFluxTransforms    = "RG0109"

	// RG02xx: Argo CD AppProject rules (internal/argocd/project).
	CodeProjectResource        = "RG0201"
	CodeProjectNamespace       = "RG0202"
	CodeProjectSourceRepo      = "RG0203"
	CodeProjectDestination     = "RG0204"
	CodeProjectAppNamespace    = "RG0205"
	CodeProjectNamespaceCreate = "RG0206"

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
	CodeListenerProtocol     = "RG1205"
	CodeListenerRouteKinds   = "RG1206"
	CodeListenerSetDetached  = "RG1207"
	CodeRouteConflict        = "RG1301"
	CodeTLSRefNotFound       = "RG1401"
	CodeTLSRefMalformed      = "RG1402"
	CodeBackendTLSTarget     = "RG1403"
	CodeTLSSettings          = "RG1404"
	CodeBackendTLSConflict   = "RG1405"
	CodeParametersRef        = "RG1501"
	CodeIngressNoService     = "RG2001"
	CodeIngressNoPort        = "RG2002"
	CodeIngressDuplicatePath = "RG2003"
	CodeIngressTLSHost       = "RG2004"
	CodeIngressNoClass       = "RG2005"
	CodeIngressClassAnnot    = "RG2006"
	CodeIngressALBAction     = "RG2007"
	CodeVirtualServiceSubset = "RG3001"
	CodeVirtualServiceWeight = "RG3002"
	CodePlainSecret          = "RG4001"
	CodeMutableImage         = "RG4002"
	CodeCRDOrdering          = "RG4003" // retired: Argo CD skips the dry run for CRs whose CRD is in the same sync
	CodeCRDAfterResource     = "RG4004"

	CodeSchemaViolation     = "RG5001"
	CodeRuleViolation       = "RG5002"
	CodeVersionNotServed    = "RG5003"
	CodeVersionDeprecated   = "RG5004"
	CodeFieldUnknown        = "RG5005"
	CodeBuiltinInvalid      = "RG5006"
	CodeNoSchema            = "RG5007"
	CodeNotFullyValidated   = "RG5008"
	CodeExperimentalChannel = "RG5009"
)

var catalog = []Code{
	{ID: CodeUnresolvedOutside, Severity: SeverityWarning, Title: "reference cannot be checked",
		Description: "An object refers to an object that this app does not render, in a namespace where it renders nothing of that kind (nor the Namespace; for Secrets, no Secret), or where objects routeguard could not render may live (an unrendered HelmRelease or chart dependency), or a Service an operator may make for a custom resource in its namespace (any kind routeguard does not model); another app or an operator may create it, so routeguard cannot tell whether it exists. The message names the likeliest maker first (an unrendered HelmRelease, Application or ResourceSet the object is named after, or the Kustomization whose path holds the referring file) and counts the others. Name the path that renders it in contextPaths of .routeguard.yaml, or suppress the finding for this object.",
		Message:     Template{"%s names %s, which cannot be checked: %s; %s", text("reference", "target", "why", "what to do")}},
	{ID: CodeMalformed, Severity: SeverityError, Title: "object does not decode as its kind", Retired: true,
		Description: "Retired: a field of the wrong type is now reported by the API server's own validation, as RG5001 for custom resources (their CRD's schema) and RG5006 for built-in kinds. It was reported from the Go types of 16 kinds (schema.Types), which the validation analyzers replace for every kind with a schema."},
	{ID: CodeUnknownField, Severity: SeverityError, Title: "unknown field", Retired: true,
		Description: "Retired: an unknown field is now RG5005, reported for every kind with a schema (custom resources through their CRD's structural schema, built-in kinds through strict decoding), as the API server's strict field validation does. It was reported from the Go types of 16 kinds (schema.Types)."},
	{ID: CodeEmptySpec, Severity: SeverityError, Title: "empty spec",
		Description: "The object has no spec, or a spec without the fields its kind requires. Fill in the spec.",
		Message:     Template{"%s %s, so it does nothing", text("kind", "what it lacks")}},
	{ID: CodeRefKindInvalid, Severity: SeverityError, Title: "reference names a kind its field cannot accept",
		Description: "A reference (backendRef, certificateRef, CA certificate reference, parametersRef) names a kind of the core or Gateway API group that the field cannot refer to (for example a certificateRef to kind WrongKind, or a CA reference to a Service); implementations mark it InvalidKind and traffic that needs it fails. Fix the group and kind.",
		Message:     Template{"%s names %s %s, a kind it cannot refer to (accepted: %s): the reference is invalid (InvalidKind) and %s", text("reference", "kind", "name", "accepted kinds", "consequence")}},
	{ID: CodeRefKindUnknown, Severity: SeverityWarning, Title: "reference to a kind routeguard does not know",
		Description: "A reference names a kind of another API group that routeguard does not know as an implementation's kind and that no CustomResourceDefinition in the app or its context paths defines; unless the Gateway implementation supports it, the reference is invalid. Check the group and kind, or add the path that renders the CRD to contextPaths.",
		Message:     Template{"%s names %s %s: %s; unless the implementation supports it, the reference is invalid (InvalidKind) and %s", text("reference", "kind", "name", "why", "consequence")}},
	{ID: CodeRendersNothing, Severity: SeverityWarning, Title: "app renders no objects",
		Description: "An app (an Argo CD Application, or a directory) renders no objects, so there was nothing to check and the reconciler would apply nothing (with automated pruning it deletes what the app deployed before). Check the source path, the include/exclude globs and the files' extensions."},
	{ID: CodeAppNotRendered, Severity: SeverityError, Title: "app does not render",
		Description: "An app (an Argo CD Application or ApplicationSet) cannot be rendered from the repository: its source path does not exist, its chart or kustomization fails, its generator is wrong. The reconciler would fail on it too (Argo CD: a ComparisonError). Its namespaces cannot be checked until it renders. Fix what the message names."},

	{ID: CodeRepeatedObject, Severity: SeverityWarning, Title: "object defined twice",
		Description: "An app renders two objects with the same group, kind, namespace and name (two files of a directory app, two templates of a chart). Argo CD applies the last one and shows a RepeatedResourceWarning; Kustomize and Flux's kustomize-controller refuse such a build. routeguard analyzes the last one. Remove or rename one of them.",
		Message:     Template{"%s is defined twice, first at %s; Argo CD applies this one (the last), a Kustomize or Flux build fails on it", text("object", "first definition")}},

	{ID: CodeNothingChecked, Severity: SeverityError, Title: "nothing checked",
		Description: "The build produced no objects, or no routing object (Ingress, Gateway API Gateway or route, Istio VirtualService, Gateway, DestinationRule or ServiceEntry), so a clean report would mean nothing. An error when what was not built holds routing (a Flux tree's unbuilt Kustomizations and HelmReleases with routing files or routing values: none of it was checked); a warning when the checkout holds routing files that nothing built reads while a source was not built (an OCI artifact pushed from them: map it with --source); in a Flux build whose inputs hold no routing at all, an info saying it routes nothing. Check the path and the notices about skipped sources; where a run really has no routing, set this code's severity to info in .routeguard.yaml.",
		Message:     Template{"%s holds no routing object%s, %s", text("what was built", "what it holds", "verdict")}},
	{ID: CodeFluxBuildFailed, Severity: SeverityError, Title: "Flux Kustomization does not build",
		Description: "kustomize-controller would fail to build this Kustomization (kustomize build, postBuild substitution, a missing path); nothing it applies is deployed or checked. The message names the reason; fix it. Everything else is still built and checked."},
	{ID: CodeHelmReleaseFailed, Severity: SeverityError, Title: "HelmRelease does not render",
		Description: "helm-controller would fail to render this HelmRelease (values, templates, post-renderers, a missing chart source); nothing it installs is deployed or checked. The message names the reason; fix it."},
	{ID: CodeDependsOnCycle, Severity: SeverityError, Title: "dependsOn cycle",
		Description: "Flux objects depend on each other in a cycle through spec.dependsOn, so none of them ever becomes ready. Break the cycle.",
		Message:     Template{"spec.dependsOn makes a cycle: %s; none of them ever becomes ready", text("cycle")}},
	{ID: CodeDependsOnMissing, Severity: SeverityWarning, Title: "dependsOn names an object the tree does not hold",
		Description: "spec.dependsOn names a Kustomization or HelmRelease that nothing in the built tree creates; unless it is created outside Git, Flux waits for it forever. Fix the name or namespace."},
	{ID: CodeAppliedTwice, Severity: SeverityWarning, Title: "object applied by two Flux objects",
		Description: "Two Kustomizations (or HelmReleases) apply the same object differently; the last to reconcile wins, so it flips between the two, and when the one that applied it last (its owner labels) stops applying it, kustomize-controller prunes it until the other reconciles again. Keep it in one place. Applied identically but for labels and annotations (a component every app Kustomization shares) it is an info.",
		Message:     Template{"%s is applied, %s, by %s and by %s: %s", text("object", "how", "first", "second", "consequence")}},
	{ID: CodeNotBuilt, Severity: SeverityInfo, Title: "Flux object not built",
		Description: "routeguard could not build this Kustomization or HelmRelease here (its source is another repository, an OCI artifact or a bucket, or a chart that is neither cached nor fetched: no --fetch-charts, or the fetch failed); references into what it would create are reported as RG0001, not as errors. An info; a warning when it is a HelmRelease whose chart was not fetched and it holds routing (routing values such as app-template's route or ingress, templates of a chart in this checkout), which is then not checked. Map the source to a directory with --source, pass --fetch-charts, or warm the chart cache (--chart-cache)."},
	{ID: CodeClusterOnlySource, Severity: SeverityWarning, Title: "substituteFrom/valuesFrom source not in the repository",
		Description: "A required ConfigMap or Secret for postBuild substitution or Helm values is neither among the built objects nor made by an object routeguard knows (ExternalSecret, SealedSecret, SOPS); routeguard takes it as created in the cluster and uses placeholders (or --var values) for its variables. If it is not created out of band, Flux fails; fix the name or mark it optional: true.",
		Message:     Template{"%s: %s %s is neither among the objects the tree applies nor made by one routeguard knows (ExternalSecret, SealedSecret, OnePasswordItem, SOPS); %s", text("field", "kind", "name", "what routeguard does instead")}},
	{ID: CodeResourceSetFailed, Severity: SeverityError, Title: "flux-operator ResourceSet does not render",
		Description: "flux-operator would fail to render this ResourceSet (a template that does not parse or uses a missing input, objects that do not decode, a resource defined in two steps); nothing it generates is applied or checked. The message names the reason; fix it. Inputs only the cluster has (ResourceSetInputProviders other than Static) are not a failure: what they generate is \"cannot check\"."},

	{ID: CodeFluxTransforms, Severity: SeverityWarning, Title: "traffic transforms Flux does not apply",
		Description: "A .routeguard.yaml with transforms (weights, syncWaves), or a Kustomization's routeguard_weights variable, applies to what a Flux Kustomization or HelmRelease builds. kustomize-controller and helm-controller apply what they build and never run routeguard, so the cluster gets the weights written in the manifests: flux build prints those, not transformed ones. State the weights in the manifests (or a Kustomize patch, or a postBuild variable), or keep the transforms for apps routeguard renders (Argo CD's cmp generate, Helm's postrender).",
		Message:     Template{"%s: %s applies what it builds and never runs routeguard; the cluster gets the manifests as written", text("what is not applied", "controller")}},

	{ID: CodeProjectResource, Severity: SeverityError, Title: "kind not permitted in the Application's project",
		Description: "The Application's AppProject does not permit this object's kind (namespaceResourceWhitelist/Blacklist for namespaced kinds, clusterResourceWhitelist/Blacklist for cluster-scoped ones, with their name rules), so Argo CD refuses the whole sync (\"resource group:Kind is not permitted in project ...\"). The message names the rule and the project's file:line. Move the object to an Application of a project that permits it (a Gateway belongs to the infrastructure project), or widen the project.",
		Message:     Template{"Argo CD will refuse the sync: %q: %s (AppProject %s, %s)", text("refusal", "why", "project", "rule")}},
	{ID: CodeProjectNamespace, Severity: SeverityError, Title: "namespace not permitted in the Application's project",
		Description: "A namespaced object goes to a namespace (its own, else the Application's destination namespace) that none of the AppProject's destinations permits on the destination cluster, or that a \"!\" destination denies, so Argo CD refuses the whole sync (\"namespace ... is not permitted in project ...\"). Deploy into a namespace of the project, or add the destination to it.",
		Message:     Template{"Argo CD will refuse the sync: %q: %s (destination cluster %s; AppProject %s, %s)", text("refusal", "why", "cluster", "project", "rule")}},
	{ID: CodeProjectSourceRepo, Severity: SeverityError, Title: "source repository not permitted in the Application's project",
		Description: "A source's repoURL matches none of the AppProject's sourceRepos (globs; \"!\" entries deny), so Argo CD marks the Application InvalidSpecError and neither compares nor syncs it (\"application repo ... is not permitted in project ...\"). Use a permitted repository, or add it to the project.",
		Message:     Template{"Argo CD will not sync it: %q: %s (AppProject %s, %s)", text("refusal", "why", "project", "rule")}},
	{ID: CodeProjectDestination, Severity: SeverityError, Title: "destination not permitted in the Application's project",
		Description: "The Application's destination (cluster by server or name, and namespace) matches none of the AppProject's destinations, or a \"!\" entry denies it, so Argo CD marks the Application InvalidSpecError and neither compares nor syncs it. Change the destination, or add it to the project.",
		Message:     Template{"Argo CD will not sync it: %q: %s (AppProject %s, %s)", text("refusal", "why", "project", "rule")}},
	{ID: CodeProjectAppNamespace, Severity: SeverityError, Title: "Application's namespace may not use its project",
		Description: "The Application lives outside Argo CD's own namespace and its AppProject's sourceNamespaces do not match that namespace, so Argo CD refuses to use the project for it (\"application ... in namespace ... is not permitted to use project ...\"). Add the namespace to sourceNamespaces, or move the Application into Argo CD's namespace (--app-namespace).",
		Message:     Template{"Argo CD will not sync it: %q: %s (AppProject %s, %s)", text("refusal", "why", "project", "rule")}},
	{ID: CodeProjectNamespaceCreate, Severity: SeverityWarning, Title: "created namespace not permitted in the Application's project",
		Description: "The Application has CreateNamespace=true and its AppProject's clusterResourceWhitelist does not permit that Namespace: while the namespace does not exist (the first sync, a new cluster) Argo CD refuses the sync (\"resource :Namespace is not permitted in project ...\"). A warning, because an existing namespace is not created again. Permit the Namespace (by name, in Argo CD 3.x) or create it another way.",
		Message:     Template{"while Namespace %s does not exist, Argo CD refuses the sync: %q: CreateNamespace=true makes Argo CD create it, and %s (AppProject %s, %s)", text("namespace", "refusal", "why", "project", "rule")}},

	{ID: CodeParentNotFound, Severity: SeverityError, Title: "parent Gateway not found",
		Description: "A route's parentRef names a Gateway (or ListenerSet, or for GAMMA a Service) that does not exist. Fix the name or namespace, or add the parent.",
		Message:     Template{"parentRef names %s %s, which does not exist, so the route attaches nowhere", text("kind", "name")}},
	{ID: CodeParentNoSection, Severity: SeverityError, Title: "parentRef sectionName names no listener",
		Description: "A route's parentRef sectionName matches no listener of the Gateway (or ListenerSet) it names; a Gateway's sectionName never names a listener of its ListenerSets. Use one of the parent's listener names.",
		Message:     Template{"parentRef sectionName %q names no listener of %s (listeners: %s)", text("section", "parent", "listeners")}},
	{ID: CodeParentNoPort, Severity: SeverityError, Title: "parentRef port matches no listener",
		Description: "A route's parentRef port matches no listener of the Gateway. Use a listener's port or drop the port.",
		Message:     Template{"parentRef port %d matches no listener of %s (%s)", []Arg{{"port", Number}, {"parent", Text}, {"listeners", Text}}}},
	{ID: CodeParentProtocol, Severity: SeverityError, Title: "listener protocol does not fit the route kind",
		Description: "The listeners a route's parentRef selects speak a protocol that does not carry this route kind (HTTPRoute needs HTTP/HTTPS, GRPCRoute HTTP/HTTPS, TLSRoute TLS, TCPRoute TCP).",
		Message:     Template{"%s cannot attach to %s of %s: the protocol does not carry %ss", text("route kind with article", "listeners", "parent", "route kind")}},
	{ID: CodeParentNamespace, Severity: SeverityError, Title: "listener does not admit routes from this namespace",
		Description: "The Gateway's listeners' allowedRoutes.namespaces (Same, All, Selector) do not admit the route's namespace. Move the route, or widen allowedRoutes.",
		Message:     Template{"allowedRoutes.namespaces of %s of %s (from: %s) do not admit routes from namespace %q", text("listeners", "parent", "from", "namespace")}},
	{ID: CodeParentKind, Severity: SeverityError, Title: "listener does not admit this route kind",
		Description: "The Gateway's listeners' allowedRoutes.kinds do not include this route's kind.",
		Message:     Template{"allowedRoutes.kinds of %s of %s do not include %s", text("listeners", "parent", "route kind")}},
	{ID: CodeParentHostname, Severity: SeverityError, Title: "route hostnames do not intersect the listener's",
		Description: "None of the route's hostnames matches the hostname of a listener it could attach to, so the route attaches nowhere. Align the hostnames.",
		Message:     Template{"route hostnames [%s] do not intersect the hostname of %s of %s, so the route attaches nowhere there", text("hostnames", "listeners", "parent")}},
	{ID: CodeRouteNoParents, Severity: SeverityError, Title: "route has no parentRefs",
		Description: "A route without parentRefs (and without spec.useDefaultGateways: All, the experimental default Gateways) attaches to no Gateway and receives no traffic. Add a parentRef.",
		Message:     Template{"%s has no parentRefs, so it attaches to no Gateway and receives no traffic", text("kind")}},
	{ID: CodeBackendNotFound, Severity: SeverityError, Title: "backend Service not found",
		Description: "A route's backendRef names a Service that does not exist; requests to it fail with 500. Fix the name or namespace, or add the Service.",
		Message:     Template{"backendRef names Service %s, which does not exist; %s", text("service", "consequence")}},
	{ID: CodeBackendNoPort, Severity: SeverityError, Title: "backend Service has no such port",
		Description: "A route's backendRef port is not a port of the Service (an ExternalName Service is reached on the port as written and not checked). Use one of the Service's ports.",
		Message:     Template{"backendRef port %d is not a port of Service %s (ports: %s); %s", []Arg{{"port", Number}, {"service", Text}, {"ports", Text}, {"consequence", Text}}}},
	{ID: CodeBackendNoGrant, Severity: SeverityError, Title: "cross-namespace backendRef without ReferenceGrant",
		Description: "A route refers to a backend in another namespace, and no ReferenceGrant in that namespace admits it. Add a ReferenceGrant there (from the route's kind and namespace, to Service).",
		Message:     Template{"backendRef to Service %s crosses namespaces and no ReferenceGrant in %q admits %ss from %q; %s", text("service", "namespace", "route kind", "route namespace", "consequence")}},
	{ID: CodeBackendZeroWeight, Severity: SeverityWarning, Title: "all backends weigh 0",
		Description: "Every backendRef of a rule has weight 0, so the rule sends no traffic (clients get 500). Give one backend a positive weight.",
		Message:     Template{"every backendRef of rule %d has weight 0, so the rule sends no traffic (%s)", []Arg{{"rule", Number}, {"consequence", Text}}}},
	{ID: CodeBackendPortMissing, Severity: SeverityError, Title: "Service backendRef without port",
		Description: "A backendRef to a Service must name a port. Add the port.",
		Message:     Template{"backendRef to Service %s has no port", text("service")}},
	{ID: CodeListenerDuplicate, Severity: SeverityError, Title: "duplicate listener name",
		Description: "Two listeners of a Gateway share a name; sectionName cannot tell them apart and the Gateway is invalid. Rename one.",
		Message:     Template{"listeners %d and %d are both named %q", []Arg{{"first", Number}, {"second", Number}, {"name", Text}}}},
	{ID: CodeListenerConflict, Severity: SeverityError, Title: "listeners collide",
		Description: "Two listeners of a Gateway (or of a Gateway and its ListenerSets) share port, protocol and hostname, or a TCP listener shares its port with an HTTP, HTTPS or TLS listener; they are Conflicted and do not serve (a ListenerSet's listener loses to the Gateway's and to older ListenerSets'). Give them distinct hostnames or ports.",
		Message:     Template{"listener %q uses %s, as listener %q %s does: %s", text("listener", "port, protocol and hostname", "other listener", "where the other is", "consequence")}},
	{ID: CodeListenerNoCert, Severity: SeverityError, Title: "TLS-terminating listener without certificate",
		Description: "An HTTPS or TLS listener in Terminate mode has a tls block with neither certificateRefs nor options (through which implementations such as GKE take certificates): the CRD refuses it. An HTTPS listener with no tls at all is a warning: only an implementation with a certificate of its own serves it (Kong's default certificate; a GKE Gateway with the networking.gke.io/certmap annotation is not reported). Add a certificateRef to a Secret, or use mode Passthrough with a TLS listener.",
		Message:     Template{"listener %q (%s) has no %s: %s", text("listener", "protocol", "what it lacks", "consequence")}},
	{ID: CodeCertificateNoGrant, Severity: SeverityError, Title: "cross-namespace certificateRef without ReferenceGrant",
		Description: "A Gateway refers to a certificate Secret in another namespace, and no ReferenceGrant there admits it. Add a ReferenceGrant (from Gateway in the Gateway's namespace, to Secret).",
		Message:     Template{"%s names %s %s in another namespace and no ReferenceGrant in %q admits %ss from %q; %s", text("reference", "kind", "name", "namespace", "referring kind", "own namespace", "consequence")}},
	{ID: CodeListenerProtocol, Severity: SeverityWarning, Title: "listener protocol no implementation supports",
		Description: "A listener's protocol is neither one of Gateway API's (HTTP, HTTPS, TLS, TCP, UDP) nor domain-prefixed (example.com/PROTO) nor one an implementation documents (Istio's HBONE); implementations mark it UnsupportedProtocol and the listener does not serve. Use a supported protocol.",
		Message:     Template{"listener %q has protocol %q: not one of %s, not domain-prefixed and not one an implementation routeguard knows supports; not accepted (UnsupportedProtocol)", text("listener", "protocol", "protocols")}},
	{ID: CodeListenerRouteKinds, Severity: SeverityError, Title: "allowedRoutes.kinds names a kind the listener cannot carry",
		Description: "A listener's allowedRoutes.kinds lists a Gateway API kind that is not a route kind its protocol carries (for example InvalidRoute, or TCPRoute on an HTTP listener); the listener's ResolvedRefs is False (InvalidRouteKinds). Remove the kind or fix its name.",
		Message:     Template{"listener %q (%s) lists %s in allowedRoutes.kinds, but it carries only %s: ResolvedRefs is False (InvalidRouteKinds)", text("listener", "protocol", "kind", "carried kinds")}},
	{ID: CodeListenerSetDetached, Severity: SeverityError, Title: "ListenerSet does not attach to its Gateway",
		Description: "A ListenerSet's parentRef names a Gateway that does not exist, or one whose allowedListeners (None by default, Same, All, Selector) does not admit the ListenerSet's namespace; its listeners serve nothing. Fix the parentRef, or set spec.allowedListeners on the Gateway.",
		Message:     Template{"parentRef names Gateway %s, which %s, so these listeners serve nothing", text("gateway", "problem")}},
	{ID: CodeRouteConflict, Severity: SeverityError, Title: "routes claim the same hostname and match",
		Description: "Two routes attached to the same listener claim the same hostname and the same match; the one that loses precedence (the newer, or the later by namespace/name) never receives traffic. Remove one or make the matches differ.",
		Message:     Template{"claims hostname %s with match %s on %s, as %s does, which wins precedence (older, or first by namespace/name): this match never receives traffic", text("hostname", "match", "listener", "winner")}},
	{ID: CodeTLSRefNotFound, Severity: SeverityWarning, Title: "certificate or CA reference names nothing rendered",
		Description: "A listener's certificateRef, the Gateway's backend client certificate, a frontend validation CA reference or a BackendTLSPolicy's caCertificateRef names a Secret or ConfigMap that the app does not render, although it renders that kind in the namespace, and nothing it renders creates it (cert-manager Certificate or gateway-shim annotations, ExternalSecret, SealedSecret, Vault, 1Password, trust-manager Bundle); unless another app or tool creates it, the listener or backend cannot do TLS. A warning, not an error: certificates are often created outside Git. Fix the name, or suppress it for this object.",
		Message:     Template{"%s names %s, which this app does not render (it renders %ss in namespace %q) and nothing it renders creates; unless something else creates it, %s", text("reference", "object", "kind", "namespace", "consequence")}},
	{ID: CodeTLSRefMalformed, Severity: SeverityError, Title: "certificate or CA bundle does not parse",
		Description: "A rendered certificate Secret lacks tls.crt/tls.key or holds no PEM certificate, or a CA ConfigMap lacks ca.crt or holds no PEM certificate; implementations mark the reference invalid. Fix the data.",
		Message:     Template{"%s names %s, but %s; the reference is invalid and %s", text("reference", "object", "problem", "consequence")}},
	{ID: CodeBackendTLSTarget, Severity: SeverityError, Title: "BackendTLSPolicy targets nothing",
		Description: "A BackendTLSPolicy's targetRef names a Service that does not exist, or a sectionName that is not a port name of the Service; the policy applies to nothing and connections to the backend are not TLS-verified as intended. Fix the targetRef.",
		Message:     Template{"targetRef names %s, which %s, so the policy applies to nothing", text("target", "problem")}},
	{ID: CodeTLSSettings, Severity: SeverityWarning, Title: "TLS settings no implementation honours",
		Description: "A Gateway's TLS settings cannot take effect: frontend client certificate validation for a port no HTTPS listener uses, or TLS options with keys that are neither domain-prefixed nor defined by Gateway API. Fix the port or the option key.",
		Message:     Template{"%s sets %s, which %s: it has no effect", text("field", "setting", "problem")}},
	{ID: CodeBackendTLSConflict, Severity: SeverityError, Title: "BackendTLSPolicies conflict",
		Description: "Two BackendTLSPolicies target the same Service (and sectionName); the newer one (or the later by namespace/name) is not Accepted (Conflicted) and does not apply. Merge them or target different ports.",
		Message:     Template{"targets %s, as %s does, which takes precedence (older, or first by namespace/name): this policy is not Accepted (Conflicted)", text("target", "other policy")}},
	{ID: CodeParametersRef, Severity: SeverityError, Title: "parametersRef names nothing",
		Description: "A GatewayClass's or Gateway's parametersRef names an object that does not exist, while the app renders that kind in its namespace; the GatewayClass or Gateway is not Accepted (InvalidParameters). Fix the reference, or add the object.",
		Message:     Template{"parametersRef names %s, which does not exist; %s", text("object", "consequence")}},

	{ID: CodeIngressNoService, Severity: SeverityError, Title: "Ingress backend Service not found",
		Description: "An Ingress backend (or defaultBackend) names a Service that does not exist. Fix the name or add the Service.",
		Message:     Template{"%s names Service %s, which does not exist; requests to it get HTTP 503", text("backend", "service")}},
	{ID: CodeIngressNoPort, Severity: SeverityError, Title: "Ingress backend Service has no such port",
		Description: "An Ingress backend names a port (by number or name) that the Service does not have (an ExternalName Service is reached on a port number as written; a port name is checked where it lists ports). Use one of the Service's ports.",
		Message:     Template{"%s names port %s, which Service %s does not have (ports: %s)", text("backend", "port", "service", "ports")}},
	{ID: CodeIngressDuplicatePath, Severity: SeverityError, Title: "host and path claimed twice",
		Description: "Two Ingresses of the same class claim the same host and path; which one wins depends on the controller. Remove one of the rules.",
		Message:     Template{"host %s path %s (%s) is also claimed by %s in class %s; which one serves depends on the controller", text("host", "path", "path type", "other Ingress", "class")}},
	{ID: CodeIngressTLSHost, Severity: SeverityWarning, Title: "TLS host not covered by a rule",
		Description: "An Ingress lists a TLS host that none of its rules serves. Add a rule for the host, or remove it from tls.hosts.",
		Message:     Template{"TLS host %s is not served by any rule of this Ingress (rule hosts: %s)", text("host", "rule hosts")}},
	{ID: CodeIngressNoClass, Severity: SeverityWarning, Title: "Ingress without class",
		Description: "An Ingress has no ingressClassName and no IngressClass is marked default (ingressclass.kubernetes.io/is-default-class); no controller may pick it up. Set spec.ingressClassName.",
		Message:     Template{"no spec.ingressClassName, and no IngressClass in this app (or its context paths) is marked %s: \"true\"; no controller serves it unless the cluster has a default class", text("annotation")}},
	{ID: CodeIngressClassAnnot, Severity: SeverityWarning, Title: "deprecated ingress class annotation",
		Description: "The kubernetes.io/ingress.class annotation is deprecated; use spec.ingressClassName.",
		Message:     Template{"the %s annotation (%q) is deprecated in favour of spec.ingressClassName", text("annotation", "class")}},
	{ID: CodeIngressALBAction, Severity: SeverityError, Title: "ALB action annotation missing or invalid",
		Description: "An Ingress backend uses the AWS Load Balancer Controller's port.name use-annotation, but the annotation alb.ingress.kubernetes.io/actions.<service.name> is missing or is not valid JSON; the controller cannot build the listener rule. Add the action annotation or fix its JSON.",
		Message:     Template{"%s uses port.name %s, so service.name %q names an AWS Load Balancer Controller action, but annotation %s %s", text("backend", "use-annotation", "action", "annotation", "problem")}},

	{ID: CodeVirtualServiceSubset, Severity: SeverityError, Title: "VirtualService subset not defined",
		Description: "A VirtualService route destination names a subset that no DestinationRule for that host defines; Envoy has no cluster for it and requests fail with 503. Add the subset to the DestinationRule or fix the name.",
		Message:     Template{"%s routes to subset %q of host %s, %s; requests fail with 503", text("route", "subset", "host", "problem")}},
	{ID: CodeVirtualServiceWeight, Severity: SeverityWarning, Title: "route weights do not sum to 100",
		Description: "The weights of a VirtualService route's destinations do not add up to 100; Istio scales them proportionally, so the split is not what it reads as (a destination without weight gets 0). Make them sum to 100.",
		Message:     Template{"%s splits traffic %s, which adds up to %d, not 100: Istio scales the weights, so the split is not what it reads as", []Arg{{"route", Text}, {"weights", Text}, {"sum", Number}}}},

	{ID: CodePlainSecret, Severity: SeverityWarning, Title: "plain Secret in the rendered output",
		Description: "A Secret holds values in Git as written: stringData in plain text, data in base64, which is not encryption. Values that are substitution variables (${NAME}, or the placeholder a flux build uses for a variable only the cluster holds) and public certificates (PEM CERTIFICATE blocks only) do not count. Use Sealed Secrets, SOPS or External Secrets instead.",
		Message:     Template{"Secret carries %d value(s) in Git as written, %s", []Arg{{"count", Number}, {"where", Text}}}},
	{ID: CodeMutableImage, Severity: SeverityWarning, Title: "mutable container image",
		Description: "A container image uses :latest or no tag or digest, so what runs changes without a change in Git. Pin a tag or a digest.",
		Message:     Template{"container %q runs image %q, which %s: what runs can change without a change in Git", text("container", "image", "problem")}},
	{ID: CodeCRDOrdering, Severity: SeverityWarning, Title: "CRD and its resources not ordered", Retired: true,
		Description: "Retired: it reported custom resources rendered with their CRD in the same sync wave, but Argo CD (gitops-engine hasCRDOfGroupKind) skips the dry run for custom resources whose CRD is in the same sync, so that sync succeeds. RG4004 reports what does fail."},
	{ID: CodeCRDAfterResource, Severity: SeverityWarning, Title: "custom resource synced before its CRD",
		Description: "A custom resource is in an earlier Argo CD sync wave (argocd.argoproj.io/sync-wave) than the CustomResourceDefinition the app renders for its kind, or in a PreSync hook; it is applied before its CRD exists and the first sync fails. Put the CRD in the same or an earlier wave (for a hook: make the CRD a hook of the same or an earlier phase, or the object a normal resource).",
		Message:     Template{"this %s is applied %s, before its CustomResourceDefinition %s (%s), so the first sync fails: the kind is unknown", text("kind", "when", "CRD", "when the CRD is")}},

	{ID: CodeSchemaViolation, Severity: SeverityError, Title: "custom resource violates its CRD's schema",
		Description: "A field of a custom resource breaks its CustomResourceDefinition's OpenAPI schema (type, enum, pattern, format, minimum/maximum, length, item count, required field, list type, metadata), checked with kube-apiserver's own code after the schema's defaults are applied; the API server rejects the object. Fix the field as the message says."},
	{ID: CodeRuleViolation, Severity: SeverityError, Title: "custom resource breaks a CEL validation rule",
		Description: "A custom resource breaks an x-kubernetes-validations (CEL) rule of its CRD, evaluated with kube-apiserver's own code and cost limits; the API server rejects the object with the rule's message. Fix the object as the message says."},
	{ID: CodeVersionNotServed, Severity: SeverityError, Title: "API version not served",
		Description: "The cluster does not serve the object's apiVersion: its CRD has no such served version, the Kubernetes version removed it (or does not have it yet), or it is not among the cluster's API versions. The sync fails with \"no matches for kind\". Use a served version. For Flux's and Argo CD's own kinds, whose releases drop versions, it is a warning: pass the cluster's CRDs with --crd-dir to make it certain. So is a built-in version the cluster's Kubernetes version decides when routeguard does not know that version: set --kube-version or KUBE_VERSION.",
		Message:     Template{"%s %s %s: %s", text("apiVersion", "kind", "verdict", "why")}},
	{ID: CodeVersionDeprecated, Severity: SeverityWarning, Title: "deprecated API version",
		Description: "The object's apiVersion is deprecated (by its CRD, or by Kubernetes for built-in kinds) and will stop being served. Move to the version the message names."},
	{ID: CodeFieldUnknown, Severity: SeverityError, Title: "unknown field",
		Description: "The object has a field its schema does not define (a typo, a wrong indentation, a field of another version); the API server drops it, and refuses the object under strict field validation, kubectl's and Argo CD's default. Remove or correct the field."},
	{ID: CodeBuiltinInvalid, Severity: SeverityError, Title: "built-in object invalid",
		Description: "An object of a built-in kind (Service, Ingress, Deployment, ...) fails Kubernetes' own validation (k8s.io/kubernetes, as kube-apiserver runs it on create): a name, port, selector, path type or value the API server rejects, or a value of the wrong type. Fix the field as the message says."},
	{ID: CodeNoSchema, Severity: SeverityInfo, Title: "no schema for this kind",
		Description: "routeguard knows no CustomResourceDefinition for this custom resource (none rendered, none in --crd-dir, none bundled), so it cannot check what the API server would reject. Said once per kind, on its first object. Pass the cluster's CRDs with --crd-dir, or render the CRD in a context path.",
		Message:     Template{"no CustomResourceDefinition for %s %s is rendered, in --crd-dir or bundled: what the API server rejects cannot be checked%s", text("group", "kind", "how many objects")}},
	{ID: CodeNotFullyValidated, Severity: SeverityWarning, Title: "object not fully validated",
		Description: "Part of the validation could not run: the CRD does not parse or its schema is not structural, or one of its CEL rules does not compile with routeguard's CEL environment (k8s.io/apiextensions-apiserver v0.37.1). The rest of the object was checked.",
		Message:     Template{"cannot validate %s%s: %s", text("kind", "against what", "error")}},
	{ID: CodeExperimentalChannel, Severity: SeverityWarning, Title: "needs Gateway API's experimental channel",
		Description: "The object is valid only with the experimental channel of the Gateway API CRDs (a field or version the standard channel lacks). A cluster running the standard channel rejects it. Tell routeguard which channel the cluster runs (--gateway-api-channel, or the cluster's CRDs with --crd-dir) to make this an error or silence it."},
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
