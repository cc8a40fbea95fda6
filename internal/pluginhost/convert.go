package pluginhost

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/plugins/sdk"
)

// request builds the plugin's request from the run's context: the
// rendered objects, then the context objects (marked). Objects of kinds
// the plugin's metadata does not list among its inputs go as stubs.
func request(c *analysis.Context, md *sdk.Metadata, cfg map[string]any) (*sdk.Request, error) {
	rendered, extra := c.Objects().Objects(), c.ContextObjects().Objects()
	req := &sdk.Request{DefaultNamespace: c.DefaultNamespace(), Objects: make([]sdk.Object, 0, len(rendered)+len(extra))}
	for i, set := range [][]*manifest.Object{rendered, extra} {
		for _, o := range set {
			body := o.Body
			if !md.Wants(o.Group(), o.Kind) {
				body = stub(o)
			}
			req.Objects = append(req.Objects, sdk.Object{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace,
				Name: o.Name, File: o.Source.File, Line: o.Source.Line, Context: i == 1, Body: body})
		}
	}
	if cfg != nil {
		data, err := jsonConfig(cfg)
		if err != nil {
			return nil, err
		}
		req.Config = data
	}
	return req, nil
}

// stub is what a plugin receives of an object whose kind it does not read.
func stub(o *manifest.Object) map[string]any {
	md := map[string]any{"name": o.Name}
	if o.Namespace != "" {
		md["namespace"] = o.Namespace
	}
	return map[string]any{"apiVersion": o.APIVersion, "kind": o.Kind, "metadata": md}
}

var codeRE = regexp.MustCompile(`^[A-Z]{2,8}[0-9]{1,6}$`)

// checkMetadata validates what a plugin declares and returns its codes.
func checkMetadata(md sdk.Metadata, firstParty bool) (map[string]sdk.Code, error) {
	if md.Name == "" {
		return nil, fmt.Errorf("metadata: the plugin gives no name")
	}
	codes := map[string]sdk.Code{}
	for _, c := range md.Codes {
		switch {
		case !codeRE.MatchString(c.ID):
			return nil, fmt.Errorf("metadata: code %q is not 2-8 upper-case letters and digits (like TH001)", c.ID)
		case !firstParty && (strings.HasPrefix(c.ID, "RG") || strings.HasPrefix(c.ID, "IST")):
			return nil, fmt.Errorf("metadata: code %s uses a prefix reserved for routeguard (RG) or Istio (IST)", c.ID)
		case !c.Severity.Valid():
			return nil, fmt.Errorf("metadata: code %s has severity %q; use error, warning or info", c.ID, c.Severity)
		case c.Description == "":
			return nil, fmt.Errorf("metadata: code %s has no description", c.ID)
		case codes[c.ID] != (sdk.Code{}):
			return nil, fmt.Errorf("metadata: code %s is declared twice", c.ID)
		}
		codes[c.ID] = c
	}
	for _, k := range md.Inputs {
		if k.Kind == "" {
			return nil, fmt.Errorf("metadata: input {group: %q} names no kind; use \"*\" for every kind of the group", k.Group)
		}
	}
	return codes, nil
}

// findings converts a plugin's findings, refusing undeclared codes. Each
// finding about a rendered or context object gets the object's
// reference (namespace defaulted) and, unless the plugin names one, its
// file:line.
func findings(c *analysis.Context, analyzer string, codes map[string]sdk.Code, in []sdk.Finding) ([]analysis.Finding, error) {
	out := make([]analysis.Finding, 0, len(in))
	for _, f := range in {
		code, ok := codes[f.Code]
		if !ok {
			return nil, fmt.Errorf("reported code %q, which it does not declare (declared: %s); its findings were dropped",
				f.Code, strings.Join(slices.Sorted(maps.Keys(codes)), ", "))
		}
		sev := f.Severity
		if sev == "" {
			sev = code.Severity
		}
		severity, err := analysis.ParseSeverity(string(sev))
		if err != nil || !sev.Valid() {
			return nil, fmt.Errorf("finding %s has severity %q; use error, warning or info", f.Code, f.Severity)
		}
		af := analysis.Finding{Code: f.Code, Severity: severity, Message: f.Message, Analyzer: analyzer,
			Object: analysis.ObjectRef{APIVersion: f.Object.APIVersion, Kind: f.Object.Kind, Namespace: f.Object.Namespace, Name: f.Object.Name}}
		if o, _ := c.Resolve(keyOf(c, af.Object)); o != nil {
			af.Object = c.Ref(o)
			af.Source = o.Source
		}
		if f.File != "" && (f.File != af.Source.File || f.Line != af.Source.Line) {
			af.Source = manifest.Source{File: f.File, Line: f.Line}
		}
		out = append(out, af)
	}
	return out, nil
}

func keyOf(c *analysis.Context, r analysis.ObjectRef) manifest.Key {
	k := manifest.Key{Group: r.Group(), Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
	if k.Namespace == "" {
		probe := &manifest.Object{APIVersion: r.APIVersion, Kind: r.Kind, Name: r.Name}
		k.Namespace = c.Namespace(probe)
	}
	return k
}
