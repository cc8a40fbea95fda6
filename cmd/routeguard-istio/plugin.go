package main

import (
	"context"
	"fmt"
	"sort"

	"istio.io/istio/pkg/config/analysis/diag"
	"istio.io/istio/pkg/config/analysis/msg"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/istio"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/plugins/sdk"
)

// version is set at build time like routeguard's (-X main.version=v1.2.3).
var version = "dev"

// istioPlugin adapts istio.Analyze to the SDK.
type istioPlugin struct{}

// rgCodes are the routeguard codes istio.Analyze reports besides Istio's.
var rgCodes = []string{analysis.CodeUnresolvedOutside}

func (istioPlugin) Metadata(context.Context) (sdk.Metadata, error) {
	md := sdk.Metadata{Name: "istio", Version: version,
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

func (istioPlugin) Analyze(ctx context.Context, req *sdk.Request) ([]sdk.Finding, error) {
	objs := make([]*manifest.Object, 0, len(req.Objects))
	for i := range req.Objects {
		o := &req.Objects[i]
		mo, err := manifest.FromBody(o.Body, manifest.Source{File: o.File, Line: o.Line})
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", o.File, o.Line, err)
		}
		objs = append(objs, mo)
		o.Body = nil // mo holds it now; Analyze releases it once converted
	}
	fs, err := istio.Analyze(ctx, objs, istio.Options{DefaultNamespace: req.DefaultNamespace, ReleaseBodies: true})
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

func severity(l diag.Level) sdk.Severity {
	switch l {
	case diag.Error:
		return sdk.SeverityError
	case diag.Warning:
		return sdk.SeverityWarning
	}
	return sdk.SeverityInfo
}
