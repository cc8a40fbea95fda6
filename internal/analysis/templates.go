package analysis

// templates are the codes' message templates. A code whose findings say
// different things at different places (a warning and an error variant,
// one site per kind of reference) has its messages written there instead,
// each under MaxMessageChars.
var templates = map[string]Template{
	CodeProjectNamespaceCreate: {"while Namespace %s does not exist, Argo CD refuses the sync: %q: CreateNamespace=true makes Argo CD create it, and %s (AppProject %s, %s)",
		text("namespace", "refusal", "why", "project", "rule")},
	CodeClusterOnlySource: {"%s: %s %s is neither among the objects the tree applies nor made by one routeguard knows (ExternalSecret, SealedSecret, OnePasswordItem, SOPS); %s",
		text("field", "kind", "name", "what routeguard does instead")},
	CodeListenerProtocol: {"listener %q has protocol %q: not one of %s, not domain-prefixed and not one an implementation routeguard knows supports; not accepted (UnsupportedProtocol)",
		text("listener", "protocol", "protocols")},
	CodeIngressNoClass: {"no spec.ingressClassName, and no IngressClass in this app (or its context paths) is marked %s: \"true\"; no controller serves it unless the cluster has a default class",
		text("annotation")},
	CodeTLSRefNotFound: {"%s names %s, which this app does not render (it renders %ss in namespace %q) and nothing it renders creates; unless something else creates it, %s",
		text("reference", "object", "kind", "namespace", "consequence")},
}
