package istio

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"istio.io/api/annotation"
	networking "istio.io/api/networking/v1alpha3"
	"istio.io/istio/pkg/config"
	istioanalysis "istio.io/istio/pkg/config/analysis"
	"istio.io/istio/pkg/config/analysis/diag"
	"istio.io/istio/pkg/config/analysis/legacy/source/kube"
	"istio.io/istio/pkg/config/analysis/msg"
	"istio.io/istio/pkg/config/schema/gvk"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

// input records what was fed to Istio, so messages can be mapped back to
// the rendered objects and judged against the workloads the set implies.
type input struct {
	opts      Options
	objects   map[gvkKey]*manifest.Object     // rendered objects, and synthetic Pods -> their workload
	synthetic map[gvkKey]bool                 // Pods synthesized from workload templates
	pods      map[string][]labels.Set         // namespace -> labels of every Pod (synthetic or rendered)
	services  map[[2]string]map[string]string // rendered Services -> their selector
	drHosts   map[*manifest.Object]string     // DestinationRules -> spec.host
	gateways  map[*manifest.Object]gatewayTLS // Istio Gateways -> selector and credentialNames
	present   map[nsKind]bool                 // (namespace, kind) the input renders; Namespace objects as {name, "/Namespace"}
	opaque    map[[2]string]bool              // Secrets whose data cannot be judged
	produced  map[[2]string]bool              // Secrets a rendered producer creates
	// gatewayPods: a rendered workload or Pod carries an "istio" label, as
	// gateway deployments do (the stand-in ingress gateway aside).
	gatewayPods bool
}

// nsKind is a namespace and a "group/Kind".
type nsKind struct{ ns, gk string }

// gatewayTLS is what the filter needs of an Istio Gateway.
type gatewayTLS struct {
	selector    map[string]string
	credentials []string
}

// renders records that the input renders o in ns.
func (in *input) renders(ns string, o *manifest.Object) {
	in.present[nsKind{ns, o.Group() + "/" + o.Kind}] = true
	if o.Kind == "Namespace" && o.Group() == "" {
		in.present[nsKind{o.Name, "/Namespace"}] = true
	}
}

// knows reports whether the absence of an object of kind gk ("group/Kind")
// in ns can be judged: the input renders that kind there, or the Namespace.
func (in *input) knows(ns, gk string) bool {
	return in.present[nsKind{ns, gk}] || in.present[nsKind{ns, "/Namespace"}]
}

func newInput(opts Options) *input {
	return &input{
		opts:      opts,
		objects:   map[gvkKey]*manifest.Object{},
		synthetic: map[gvkKey]bool{},
		pods:      map[string][]labels.Set{},
		services:  map[[2]string]map[string]string{},
		drHosts:   map[*manifest.Object]string{},
		gateways:  map[*manifest.Object]gatewayTLS{},
		present:   map[nsKind]bool{},
		opaque:    map[[2]string]bool{},
		produced:  map[[2]string]bool{},
	}
}

// add records a rendered object fed to Istio as cfg. What the filter
// needs later is taken from the decoded spec, not the body, so that bodies
// can be released once converted (Options.ReleaseBodies).
func (in *input) add(cfg *config.Config, ns string, o *manifest.Object) {
	in.objects[keyOf(cfg.GroupVersionKind, ns, o.Name)] = o
	switch spec := cfg.Spec.(type) {
	case *corev1.ServiceSpec:
		in.services[[2]string{ns, o.Name}] = spec.Selector
	case *networking.DestinationRule:
		in.drHosts[o] = spec.GetHost()
	case *networking.Gateway:
		g := gatewayTLS{selector: spec.GetSelector()}
		for _, s := range spec.GetServers() {
			if cn := s.GetTls().GetCredentialName(); cn != "" {
				g.credentials = append(g.credentials, cn)
			}
		}
		in.gateways[o] = g
	}
}

func (in *input) addSynthetic(ns, podName string, workload *manifest.Object, l map[string]string) {
	k := keyOf(gvk.Pod, ns, podName)
	in.objects[k] = workload
	in.synthetic[k] = true
	in.addRenderedPodLabels(ns, l)
}

// addRenderedPodLabels records the labels of a Pod the input renders (or
// a workload's template).
func (in *input) addRenderedPodLabels(ns string, l map[string]string) {
	if _, ok := l["istio"]; ok {
		in.gatewayPods = true
	}
	in.addPodLabels(ns, l)
}

func (in *input) addPodLabels(ns string, l map[string]string) {
	in.pods[ns] = append(in.pods[ns], labels.Set(l))
}

// filter turns Istio messages into findings.
type filter struct {
	in    *input
	mu    sync.Mutex                // analyzers report from several goroutines
	known map[*manifest.Object]bool // serviceWorkloadsKnown by DestinationRule
}

func newFilter(in *input, _ Options) *filter {
	return &filter{in: in, known: map[*manifest.Object]bool{}}
}

// Codes that describe live state a synthetic Pod cannot have: the sidecar
// is added by the injection webhook at admission, so a pod template never
// carries it, and `image: auto` is only wrong on a Pod that is not injected,
// which the Deployment-level check (IST0146) already judges.
var syntheticPodSilenced = map[string]bool{
	msg.PodMissingProxy.Code():                true, // IST0103
	msg.ImageAutoWithoutInjectionError.Code(): true, // IST0147
}

// finding converts m, or returns false when m is not to be reported: it is
// about a resource that was not rendered (Istio's default ingress gateway),
// or it needs live Pods that no rendered workload backs.
func (f *filter) finding(m diag.Message) (analysis.Finding, bool) {
	fd := analysis.Finding{
		Code:     m.Type.Code(),
		Severity: severityOf(m.Type.Level()),
		Analyzer: Name,
	}
	if m.Resource == nil {
		fd.Message = messageText(m)
		return fd, true
	}
	if suppressedByAnnotation(m) {
		return fd, false
	}
	origin, ok := m.Resource.Origin.(*kube.Origin)
	if !ok {
		fd.Message = messageText(m)
		return fd, true
	}
	ns, name := m.Resource.Metadata.FullName.Namespace.String(), m.Resource.Metadata.FullName.Name.String()
	k := keyOf(origin.Type, ns, name)
	o, ok := f.in.objects[k]
	if !ok {
		return fd, false
	}
	if f.in.synthetic[k] && syntheticPodSilenced[fd.Code] {
		return fd, false
	}
	if subsetMessage(m) {
		return fd, false // RG3001 (istioroutes.Subsets) reports it once, with context paths and wildcard hosts
	}
	if sev, ok := f.credentialVerdict(m, o); !ok {
		return fd, false
	} else if sev != 0 {
		fd.Severity = sev
	}
	if !f.in.opts.ReportUnbackedPodMessages && !f.backed(m, origin.Type, ns, o) {
		return fd, false
	}
	fd.Message = messageText(m)
	if sel, ok := f.gatewaySelectorElsewhere(m, origin.Type); ok {
		fd.Code = analysis.CodeUnresolvedOutside
		fd.Severity = analysis.SeverityWarning
		fd.Message = fmt.Sprintf("selector %s matches no gateway workload this app renders, and it renders none (Istio's gateway chart or install makes it elsewhere): it cannot be checked (Istio reports it as %s)",
			sel, m.Type.Code())
	}
	if gw, gns, ok := f.outsideGateway(m, ns); ok {
		if m.Type.Code() != msg.ReferencedResourceNotFound.Code() {
			return fd, false // IST0132 on a Gateway the RG0001 below already says cannot be checked
		}
		fd.Code = analysis.CodeUnresolvedOutside
		fd.Severity = analysis.SeverityWarning
		fd.Message = fmt.Sprintf("gateway %s is in namespace %q, where this app renders no Istio Gateway: it cannot be checked (Istio reports it as %s)",
			gw, gns, m.Type.Code())
	} else if host, ok := f.outsideHost(m, ns); ok {
		fd.Code = analysis.CodeUnresolvedOutside
		fd.Severity = analysis.SeverityWarning
		fd.Message = fmt.Sprintf("%s %s is in namespace %q, which this app does not render: it cannot be checked (Istio reports it as %s)",
			m.Parameters[0], host, hostNamespaceOf(host, ns), m.Type.Code())
	}
	fd.Object = analysis.ObjectRef{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: objectNamespace(o, ns), Name: o.Name}
	if origin.Type.Kind == "Namespace" || ns == "" {
		fd.Object.Namespace = o.Namespace
	}
	fd.Source = o.Source
	return fd, true
}

// suppressedByAnnotation honours Istio's per-object suppression annotation
// (galley.istio.io/analyze-suppress: "IST0101,IST0173" or "*"), as
// istioctl does.
func suppressedByAnnotation(m diag.Message) bool {
	v := m.Resource.Metadata.Annotations[annotation.GalleyAnalyzeSuppress.Name]
	if v == "" {
		return false
	}
	for _, code := range strings.Split(v, ",") {
		if code = strings.TrimSpace(code); code == "*" || code == m.Type.Code() {
			return true
		}
	}
	return false
}

// outsideHost reports whether m is Istio's "host not found" about a
// Kubernetes service host (name, name.ns.svc[.cluster.local]) in a
// namespace where the input renders no Service (nor the Namespace): that
// host may well exist, deployed by another app, so it is a warning that it
// cannot be checked, not an error.
func (f *filter) outsideHost(m diag.Message, ns string) (string, bool) {
	if m.Type.Code() != msg.ReferencedResourceNotFound.Code() || len(m.Parameters) < 2 {
		return "", false
	}
	what, _ := m.Parameters[0].(string)
	host, _ := m.Parameters[1].(string)
	if what != "host" && what != "mirror host" {
		return "", false
	}
	hns := hostNamespaceOf(host, ns)
	if hns == "" || f.in.knows(hns, "/Service") {
		return "", false
	}
	return host, true
}

// outsideGateway reports whether m is about an Istio Gateway a
// VirtualService binds to in a namespace where the input renders no Istio
// Gateway: Istio's "gateway not found" (IST0101) and "host not found in
// gateway" (IST0132). Shared gateways live in their own app (istio-system,
// istio-ingress), so such a Gateway may well exist; it cannot be checked.
func (f *filter) outsideGateway(m diag.Message, ns string) (name, gatewayNS string, ok bool) {
	switch {
	case m.Type.Code() == msg.ReferencedResourceNotFound.Code() && len(m.Parameters) >= 2:
		if what, _ := m.Parameters[0].(string); what != "gateway" {
			return "", "", false
		}
		name, _ = m.Parameters[1].(string)
	case m.Type.Code() == msg.VirtualServiceHostNotFoundInGateway.Code() && len(m.Parameters) >= 3:
		name, _ = m.Parameters[2].(string)
	default:
		return "", "", false
	}
	gatewayNS = ns
	if gns, _, found := strings.Cut(name, "/"); found {
		gatewayNS = gns
	}
	if name == "" || f.in.present[nsKind{gatewayNS, "networking.istio.io/Gateway"}] {
		return "", "", false
	}
	return name, gatewayNS, true
}

// hostNamespaceOf returns the namespace of a Kubernetes service host: a
// short name is the service in ns (the referring object's namespace), the
// explicit forms (name.ns.svc[.cluster.local]) name theirs; "" for any
// other host (external names, which a ServiceEntry must define).
func hostNamespaceOf(host, ns string) string {
	if !strings.Contains(host, ".") {
		return ns
	}
	return hostNamespace(host)
}

// hostNamespace returns the namespace of a host written in the explicit
// Kubernetes service form (name.ns.svc or name.ns.svc.cluster.local), or "".
func hostNamespace(host string) string {
	parts := strings.Split(host, ".")
	if len(parts) >= 3 && parts[2] == "svc" {
		return parts[1]
	}
	return ""
}

// gatewaySelectorElsewhere reports whether m is Istio's "selector not
// found" (IST0101) for an Istio Gateway while the input renders no gateway
// workload at all: gateways are deployed by Istio's gateway chart or
// install, usually in another app or a HelmRelease routeguard did not
// render, so the selector cannot be judged. When the input does render
// gateway workloads, a selector matching none of them is reported.
func (f *filter) gatewaySelectorElsewhere(m diag.Message, g config.GroupVersionKind) (string, bool) {
	if m.Type.Code() != msg.ReferencedResourceNotFound.Code() || g != gvk.Gateway || len(m.Parameters) < 2 || f.in.gatewayPods {
		return "", false
	}
	if what, _ := m.Parameters[0].(string); what != "selector" {
		return "", false
	}
	return fmt.Sprint(m.Parameters[1]), true
}

// backed reports whether a message that depends on live Pods is backed by
// workloads the rendered set defines. Other messages are always backed.
func (f *filter) backed(m diag.Message, g config.GroupVersionKind, ns string, o *manifest.Object) bool {
	switch m.Type.Code() {
	case msg.DestinationRuleSubsetNotSelectPods.Code(): // IST0173
		f.mu.Lock()
		defer f.mu.Unlock()
		known, ok := f.known[o]
		if !ok {
			known = f.serviceWorkloadsKnown(ns, o)
			f.known[o] = known
		}
		return known
	case msg.NoMatchingWorkloadsFound.Code(): // IST0127: AuthorizationPolicy selectors
		return len(f.in.pods[ns]) > 0
	case msg.ReferencedResourceNotFound.Code(): // IST0101 "selector" of Sidecars and Telemetries
		if what, _ := m.Parameters[0].(string); what == "selector" && (g == gvk.Sidecar || g == gvk.Telemetry) {
			return len(f.in.pods[ns]) > 0
		}
	}
	return true
}

// serviceWorkloadsKnown reports whether the DestinationRule o's host is a
// rendered Service whose selector matches at least one rendered workload:
// only then does "this subset selects no pods" say something about the
// rendered set rather than about workloads deployed elsewhere.
func (f *filter) serviceWorkloadsKnown(drNS string, o *manifest.Object) bool {
	name, ns, ok := serviceOfHost(f.in.drHosts[o], drNS)
	if !ok {
		return false
	}
	sel, ok := f.in.services[[2]string{ns, name}]
	if !ok || len(sel) == 0 {
		return false
	}
	selector := labels.SelectorFromSet(sel)
	for _, l := range f.in.pods[ns] {
		if selector.Matches(l) {
			return true
		}
	}
	return false
}

// serviceOfHost resolves a DestinationRule host the way Istio does for
// Kubernetes Services: "name" (the rule's namespace), "name.ns",
// "name.ns.svc" or "name.ns.svc.cluster.local".
func serviceOfHost(host, defNS string) (name, ns string, ok bool) {
	if host == "" || strings.Contains(host, "*") {
		return "", "", false
	}
	parts := strings.Split(host, ".")
	switch {
	case len(parts) == 1:
		return parts[0], defNS, true
	case len(parts) == 2, len(parts) == 3 && parts[2] == "svc",
		len(parts) >= 4 && parts[2] == "svc":
		return parts[0], parts[1], true
	}
	return "", "", false
}

func sortFindings(fs []analysis.Finding) []analysis.Finding {
	slices.SortStableFunc(fs, func(a, b analysis.Finding) int {
		return cmp.Or(
			cmp.Compare(a.Source.File, b.Source.File),
			cmp.Compare(a.Source.Line, b.Source.Line),
			cmp.Compare(a.Code, b.Code),
			cmp.Compare(a.Object.String(), b.Object.String()),
			cmp.Compare(a.Message, b.Message),
		)
	})
	// Two synthetic Pods of one workload kind cannot exist, but two
	// messages may map to the same object and text; report each once.
	return slices.CompactFunc(fs, analysis.Finding.Same)
}

// filteringAnalyzer runs Istio's combined analyzer with a context that
// drops, as they are reported, the messages the filter would drop anyway.
type filteringAnalyzer struct {
	istioanalysis.CombinedAnalyzer
	f *filter
}

func (a filteringAnalyzer) Analyze(ctx istioanalysis.Context) {
	a.CombinedAnalyzer.Analyze(filteringContext{Context: ctx, f: a.f})
}

type filteringContext struct {
	istioanalysis.Context
	f *filter
}

func (c filteringContext) Report(g config.GroupVersionKind, m diag.Message) {
	if _, ok := c.f.finding(m); ok {
		c.Context.Report(g, m)
	}
}

// subsetMessage reports whether m is Istio's IST0101 about a
// VirtualService destination (or mirror) subset that no DestinationRule
// defines. routeguard's RG3001 reports the same problem once, resolving
// DestinationRules in context paths and wildcard hosts, and saying which
// cannot be checked; one problem gets one finding.
func subsetMessage(m diag.Message) bool {
	if m.Type.Code() != msg.ReferencedResourceNotFound.Code() || len(m.Parameters) == 0 {
		return false
	}
	what, _ := m.Parameters[0].(string)
	return what == "host+subset in destinationrule" || what == "mirror+subset in destinationrule"
}

// credentialVerdict judges Istio's messages about an Istio Gateway's
// credentialName Secrets by what the app renders, as RG1401 does for
// Gateway API: a missing Secret (IST0101 "credentialName") is kept, as a
// warning, only when the app renders Secrets in every namespace the
// gateway's workload runs in and nothing it renders creates that one
// (cert-manager Certificate, ExternalSecret, SealedSecret, ...); an
// invalid credential (IST0161) is dropped when one of the Gateway's
// Secrets cannot be judged from Git (SOPS-encrypted, templated, reflected).
// ok is false to drop m; sev is the severity to report it with (0: Istio's).
func (f *filter) credentialVerdict(m diag.Message, o *manifest.Object) (sev analysis.Severity, ok bool) {
	g, isGateway := f.in.gateways[o]
	switch {
	case !isGateway:
		return 0, true
	case m.Type.Code() == msg.InvalidGatewayCredential.Code():
		for _, ns := range f.gatewayNamespaces(g) {
			for _, cn := range g.credentials {
				sns, name := secretOf(cn, ns)
				if f.in.opaque[[2]string{sns, name}] {
					return 0, false
				}
			}
		}
		return 0, true
	case m.Type.Code() == msg.ReferencedResourceNotFound.Code() && len(m.Parameters) > 1:
		if what, _ := m.Parameters[0].(string); what != "credentialName" {
			return 0, true
		}
		cn, _ := m.Parameters[1].(string)
		nss := f.gatewayNamespaces(g)
		if len(nss) == 0 {
			return 0, false
		}
		for _, ns := range nss {
			sns, name := secretOf(cn, ns)
			if !f.in.present[nsKind{sns, "/Secret"}] || f.in.produced[[2]string{sns, name}] {
				return 0, false
			}
		}
		return analysis.SeverityWarning, true
	}
	return 0, true
}

// gatewayNamespaces returns the namespaces of the Pods an Istio Gateway's
// selector matches (where Istio looks up its credentialName Secrets).
func (f *filter) gatewayNamespaces(g gatewayTLS) []string {
	if len(g.selector) == 0 {
		return nil
	}
	sel := labels.SelectorFromSet(g.selector)
	var out []string
	for ns, pods := range f.in.pods {
		for _, l := range pods {
			if sel.Matches(l) {
				out = append(out, ns)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// secretOf resolves a credentialName ("name" or "namespace/name") against
// the gateway workload's namespace.
func secretOf(cn, ns string) (string, string) {
	if i := strings.IndexByte(cn, '/'); i >= 0 {
		return cn[:i], cn[i+1:]
	}
	return ns, cn
}
