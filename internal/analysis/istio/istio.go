package istio

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"istio.io/istio/pilot/pkg/model"
	"istio.io/istio/pkg/cluster"
	"istio.io/istio/pkg/config"
	istioanalysis "istio.io/istio/pkg/config/analysis"
	"istio.io/istio/pkg/config/analysis/diag"
	"istio.io/istio/pkg/config/analysis/legacy/util/kuberesource"
	"istio.io/istio/pkg/config/analysis/local"
	"istio.io/istio/pkg/config/analysis/msg"
	"istio.io/istio/pkg/config/schema/collection"
	"istio.io/istio/pkg/config/schema/collections"
	"istio.io/istio/pkg/config/schema/gvk"
	sresource "istio.io/istio/pkg/config/schema/resource"
	"istio.io/istio/pkg/kube/inject"
	"istio.io/istio/pkg/log"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Name is the analyzer name findings carry.
const Name = "istio.Analyzers"

// Options tune a run. The zero value is what `routeguard analyze` uses.
type Options struct {
	// DefaultNamespace is the namespace of namespaced objects that name
	// none ("default" when empty), as `kubectl apply` would place them.
	DefaultNamespace string
	// IstioNamespace is where the control plane and the default ingress
	// gateway live ("istio-system" when empty).
	IstioNamespace string
	// NoDefaultResources leaves out the ingress gateway Pod and Service that
	// Istio adds for file-only analysis (istioctl does add them), so that a
	// Gateway selecting `istio: ingressgateway` is only satisfied by a
	// rendered workload.
	NoDefaultResources bool
	// ReportUnbackedPodMessages keeps the messages that depend on live Pods
	// even where no rendered workload backs the selector (see filter.go).
	// This is istioctl's behaviour with Services kept: one IST0173 per
	// DestinationRule subset of every service whose workloads are
	// deployed by another app.
	ReportUnbackedPodMessages bool
	// ReleaseBodies lets Analyze drop each object's Body (set it to nil)
	// once the object is converted into Istio's types, so that a caller
	// that holds the objects for nothing else (the routeguard-istio
	// plugin) does not keep two copies of every object alive.
	ReleaseBodies bool
}

// excludedKinds are kinds Istio's analyzers read that are not taken from
// the rendered set. (Secrets are taken: the filter judges Istio's
// credentialName messages by what the app renders, see filter.go.)
var excludedKinds = map[string]bool{}

var silenceOnce sync.Once

// silence turns Istio's process-wide loggers off: analysis results are
// returned as findings, and Istio's warnings on stderr would corrupt the
// CMP's output contract.
func silence() {
	silenceOnce.Do(func() {
		for _, s := range log.Scopes() {
			s.SetOutputLevel(log.NoneLevel)
		}
	})
}

// Analyze runs Istio's analyzers (analyzers.AllCombined, the set behind
// `istioctl analyze`) over objs in all namespaces and returns their messages
// as findings on the objects' file:line, sorted deterministically. An error
// means the analysis itself failed, never that the input has problems.
func Analyze(ctx context.Context, objs []*manifest.Object, opts Options) (out []analysis.Finding, err error) {
	defer recoverAnalysis(&out, &err)
	r := NewRun(opts)
	for _, o := range objs {
		r.Add(o)
	}
	return r.Finish(ctx)
}

// Run is one analysis fed object by object, for a caller that receives the
// objects over time (the routeguard-istio plugin converts each as it
// arrives, while the rest is still on the wire). Analyze is NewRun, Add
// for every object and Finish.
type Run struct {
	opts     Options
	combined istioanalysis.CombinedAnalyzer
	schemas  collection.Schemas
	conv     *converter

	// Objects are converted on every processor (decoding specs into
	// Istio's protobuf types is most of a run's cost) while Add returns at
	// once; each result has its slot, in the order of Add.
	converted []*converted
	work      chan convertJob
	wg        sync.WaitGroup
	mu        sync.Mutex
	panicked  error // the first panic of a conversion
}

type convertJob struct {
	o   *manifest.Object
	out *converted
}

// NewRun prepares a run with opts.
func NewRun(opts Options) *Run {
	silence()
	if opts.DefaultNamespace == "" {
		opts.DefaultNamespace = "default"
	}
	if opts.IstioNamespace == "" {
		opts.IstioNamespace = "istio-system"
	}
	combined := allAnalyzers()
	schemas := inputSchemas(combined)
	return &Run{opts: opts, combined: combined, schemas: schemas, conv: newConverter(schemas)}
}

// Add queues o for conversion into Istio's types (dropping o.Body once
// converted, with Options.ReleaseBodies). Objects are analyzed in the
// order they are added. Add is not safe for concurrent use.
func (r *Run) Add(o *manifest.Object) {
	if r.work == nil {
		r.work = make(chan convertJob, 256)
		for range runtime.GOMAXPROCS(0) {
			r.wg.Add(1)
			go r.convertLoop()
		}
	}
	c := &converted{obj: o}
	r.converted = append(r.converted, c)
	r.work <- convertJob{o, c}
}

func (r *Run) convertLoop() {
	defer r.wg.Done()
	for j := range r.work {
		r.convertOne(j)
	}
}

func (r *Run) convertOne(j convertJob) {
	defer func() {
		if p := recover(); p != nil {
			r.mu.Lock()
			if r.panicked == nil {
				r.panicked = fmt.Errorf("istio analyzers failed on %s %s: %v", j.o.Kind, j.o.Source, p)
			}
			r.mu.Unlock()
			j.out.skip = true
		}
	}()
	*j.out = r.conv.convert(j.o, r.opts.DefaultNamespace)
	if r.opts.ReleaseBodies {
		j.o.Body = nil
	}
}

// Finish runs the analyzers over the objects added.
func (r *Run) Finish(ctx context.Context) (out []analysis.Finding, err error) {
	defer recoverAnalysis(&out, &err)
	if r.work != nil {
		close(r.work)
		r.wg.Wait()
	}
	if r.panicked != nil { // the workers are done: no lock needed
		return nil, r.panicked
	}
	opts := r.opts
	in := newInput(opts)
	st := newStore(r.schemas)
	var findings []analysis.Finding
	for _, c := range r.converted {
		o, ns := c.obj, c.ns
		if c.skip {
			continue
		}
		in.renders(ns, o)
		if c.opaque {
			in.opaque[[2]string{ns, o.Name}] = true
		}
		if c.produces != "" {
			in.produced[[2]string{ns, c.produces}] = true
		}
		if c.err != nil {
			findings = append(findings, schemaFinding(o, ns, c.err))
			continue
		}
		if c.cfg != nil {
			if _, err := st.Create(*c.cfg); err != nil {
				continue // a duplicate; the manifest model reports those
			}
			in.add(c.cfg, ns, o)
			if c.cfg.GroupVersionKind == gvk.Pod {
				in.addRenderedPodLabels(ns, c.cfg.Labels)
			}
		}
		if c.pod != nil {
			if _, err := st.Create(*c.pod); err == nil {
				in.addSynthetic(ns, c.pod.Name, o, c.pod.Labels)
			}
		}
	}
	r.converted = nil // the store holds what the analyzers read
	if !opts.NoDefaultResources {
		if err := addDefaultIngress(st, opts.IstioNamespace, in); err != nil {
			return nil, err
		}
	}

	if err := addMeshConfig(st, opts.IstioNamespace); err != nil {
		return nil, err
	}

	// What local.IstiodAnalyzer.Analyze does, on the store above: skip the
	// analyzers whose inputs are not in the store, run the others in Istio's
	// own analysis context, collect the messages.
	f := newFilter(in, opts)
	msgs, err := runAnalyzers(ctx, r.combined, st, f)
	if err != nil {
		return nil, err
	}
	for _, m := range msgs {
		if fd, ok := f.finding(m); ok {
			findings = append(findings, fd)
		}
	}
	return sortFindings(findings), nil
}

func recoverAnalysis(out *[]analysis.Finding, err *error) {
	if r := recover(); r != nil {
		*out, *err = nil, fmt.Errorf("istio analyzers failed: %v", r)
	}
}

// runAnalyzers does what local.IstiodAnalyzer.Analyze does, on st: skip
// the analyzers whose inputs are not in the store, run the others in
// Istio's own analysis context, collect the messages. The analyzers are
// split over the available processors, each group with a context of its
// own (a context is not safe for concurrent use; the store is read-only).
func runAnalyzers(ctx context.Context, combined istioanalysis.CombinedAnalyzer, st *store,
	f *filter,
) ([]diag.Message, error) {
	combined.RemoveSkipped(st.Schemas())
	byName := map[string]istioanalysis.Analyzer{}
	for _, a := range guardedAnalyzers() {
		byName[a.Metadata().Name] = a
	}
	groups := make([][]istioanalysis.Analyzer, max(1, min(runtime.GOMAXPROCS(0), 4)))
	for i, name := range combined.AnalyzerNames() {
		groups[i%len(groups)] = append(groups[i%len(groups)], byName[name])
	}
	results := make([]diag.Messages, len(groups))
	errs := make([]error, len(groups))
	var wg sync.WaitGroup
	for i, g := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Istio polls Canceled() between analyzers.
			ictx := local.NewContext(map[cluster.ID]model.ConfigStore{"default": st}, ctx.Done(), func(config.GroupVersionKind) {})
			// Messages routeguard will not report are dropped as Istio
			// reports them: sorting thousands of them (Istio sorts by
			// formatted text) would cost more than the analysis.
			filteringAnalyzer{CombinedAnalyzer: istioanalysis.Combine("group", g...), f: f}.Analyze(ictx)
			getter, ok := ictx.(interface{ GetMessages(...string) diag.Messages })
			if !ok {
				errs[i] = fmt.Errorf("istio's analysis context no longer exposes its messages (%T)", ictx)
				return
			}
			results[i] = getter.GetMessages()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []diag.Message
	for _, r := range results {
		out = append(out, r...)
	}
	return out, nil
}

// inputSchemas returns the kinds Istio's analyzers read, less the excluded
// ones, plus the mesh configuration.
func inputSchemas(combined istioanalysis.CombinedAnalyzer) collection.Schemas {
	schemas := kuberesource.ConvertInputsToSchemas(combined.Metadata().Inputs)
	for _, s := range schemas.All() {
		if s.Group() == "" && excludedKinds[s.Kind()] {
			schemas = schemas.Remove(s)
		}
	}
	for _, mc := range []sresource.Schema{collections.MeshConfig, collections.MeshNetworks} {
		if _, ok := schemas.FindByGroupVersionKind(mc.GroupVersionKind()); !ok {
			schemas = schemas.Add(mc)
		}
	}
	return schemas
}

// ignoredNamespace mirrors istioctl's file source, which drops objects in
// the Kubernetes system namespaces (kube-system, kube-public, ...).
func ignoredNamespace(o *manifest.Object, ns string) bool {
	if o.Kind == "Namespace" && o.Group() == "" {
		return inject.IgnoredNamespaces.Contains(o.Name)
	}
	return ns != "" && inject.IgnoredNamespaces.Contains(ns)
}

// schemaFinding reports an object whose spec does not decode as its kind,
// with Istio's own schema validation message type.
func schemaFinding(o *manifest.Object, ns string, err error) analysis.Finding {
	m := msg.NewSchemaValidationError(nil, err)
	return analysis.Finding{
		Code:     m.Type.Code(),
		Severity: severityOf(m.Type.Level()),
		Message:  messageText(m),
		Object:   analysis.ObjectRef{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: ns, Name: o.Name},
		Source:   o.Source,
		Analyzer: Name,
	}
}

// severityOf maps Istio's levels onto routeguard's severities.
func severityOf(l diag.Level) analysis.Severity {
	switch l {
	case diag.Error:
		return analysis.SeverityError
	case diag.Warning:
		return analysis.SeverityWarning
	}
	return analysis.SeverityInfo
}

// messageText is Istio's message followed by the page that explains it.
func messageText(m diag.Message) string {
	u, _ := m.Unstructured(false)["documentationUrl"].(string)
	text := fmt.Sprintf(m.Type.Template(), m.Parameters...)
	if u == "" {
		return text
	}
	return strings.TrimSuffix(text, ".") + " (see " + u + ")"
}

// gvkKey identifies a config in the analyzed store.
type gvkKey struct {
	group, kind, ns, name string
}

func keyOf(g config.GroupVersionKind, ns, name string) gvkKey {
	return gvkKey{group: g.Group, kind: g.Kind, ns: ns, name: name}
}
