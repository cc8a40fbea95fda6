package main

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"istio.io/istio/pkg/config/analysis/diag"
	"istio.io/istio/pkg/config/analysis/msg"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/istio"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/version"
	"github.com/routeguard/routeguard/plugins/sdk"
)

// istioPlugin adapts istio.Run to the SDK: objects are converted as they
// arrive (sdk.Receiver), the analyzers run when the request is complete.
type istioPlugin struct {
	mu   sync.Mutex
	runs map[*sdk.Request]*istio.Run // calls in progress
}

var _ sdk.Receiver = (*istioPlugin)(nil)

// rgCodes are the routeguard codes istio.Analyze reports besides Istio's.
var rgCodes = []string{analysis.CodeUnresolvedOutside}

func (*istioPlugin) Metadata(context.Context) (sdk.Metadata, error) {
	md := sdk.Metadata{Name: "istio", Version: version.Get().Version,
		Description: "Istio's own configuration analyzers, as istioctl analyze runs them."}
	for _, t := range msg.All() {
		md.Codes = append(md.Codes, sdk.Code{ID: t.Code(), Severity: severity(t.Level()), Description: t.Template()})
	}
	for _, id := range rgCodes {
		c, ok := analysis.LookupCode(id)
		if !ok {
			return md, fmt.Errorf("code %s is not in routeguard's catalog", id)
		}
		md.Codes = append(md.Codes, sdk.Code{ID: c.ID, Severity: sdk.Severity(c.Severity.String()), Description: c.Title})
	}
	sort.Slice(md.Codes, func(i, j int) bool { return md.Codes[i].ID < md.Codes[j].ID })
	// Only the kinds Istio's analyzers (and the Pods implied by workload
	// templates) read travel whole; the rest arrive as stubs, which is all
	// the analysis needs of them (which namespaces the app renders).
	for _, gk := range (istio.Analyzers{}).Metadata().Inputs {
		md.Inputs = append(md.Inputs, sdk.Kind{Group: gk.Group, Kind: gk.Kind})
	}
	return md, nil
}

// Receive converts each object into Istio's types as it arrives and drops
// its decoded body, so the plugin never holds every object's map at once.
func (p *istioPlugin) Receive(_ context.Context, req *sdk.Request, o *sdk.Object) error {
	mo, err := manifest.FromBody(o.Body, manifest.Source{File: o.File, Line: o.Line})
	if err != nil {
		return fmt.Errorf("%s:%d: %w", o.File, o.Line, err)
	}
	o.Body = nil // mo holds it until the run has converted it
	p.run(req).Add(mo)
	return nil
}

func (p *istioPlugin) Analyze(ctx context.Context, req *sdk.Request) ([]sdk.Finding, error) {
	r := p.run(req)
	p.mu.Lock()
	delete(p.runs, req)
	p.mu.Unlock()
	fs, err := r.Finish(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]sdk.Finding, 0, len(fs))
	for _, f := range fs {
		out = append(out, sdk.Finding{Code: f.Code, Severity: sdk.Severity(f.Severity.String()), Message: f.Message,
			Object: sdk.ObjectRef{APIVersion: f.Object.APIVersion, Kind: f.Object.Kind, Namespace: f.Object.Namespace, Name: f.Object.Name},
			File:   f.Source.File, Line: f.Source.Line})
	}
	return out, nil
}

// run returns the analysis of req, started on its first object.
func (p *istioPlugin) run(req *sdk.Request) *istio.Run {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.runs[req]
	if !ok {
		r = istio.NewRun(istio.Options{DefaultNamespace: req.DefaultNamespace, ReleaseBodies: true})
		p.runs[req] = r
	}
	return r
}

func severity(l diag.Level) sdk.Severity {
	switch l {
	case diag.Error:
		return sdk.SeverityError
	case diag.Warning:
		return sdk.SeverityWarning
	}
	return sdk.SeverityInfo
}
