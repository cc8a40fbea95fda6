package validation

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/apiserver"
	"github.com/routeguard/routeguard/internal/manifest"
)

// CustomResources validates custom resources against their CRD as
// kube-apiserver does on create (see package validate): unknown fields
// (RG5005), the structural schema after defaulting (RG5001) and the CEL
// rules (RG5002), each at the field's line.
type CustomResources struct{}

// Metadata implements analysis.Analyzer. It reads every custom resource
// and the CRDs; the kinds listed are those of the bundled CRDs.
func (CustomResources) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "validation.CustomResources",
		Description: "Validates custom resources against their CRD's schema and CEL rules with kube-apiserver's own code.",
		Doc:         "Custom resources against their CRD, with kube-apiserver's own code (k8s.io/apiextensions-apiserver): unknown fields (`RG5005`), the structural schema after defaulting (`RG5001`), the `x-kubernetes-validations` CEL rules (`RG5002`), each at the field's line. The CRD comes from the app, a context path, `--crd-dir`, or the bundled Gateway API and Istio CRDs; no CRD known is `RG5007` (info). See [validation.md](validation.md).",
		Inputs:      bundledKinds(),
	}
}

// Long implements analysis.Long: validation is most of the analysis of a
// large repository, and starts before the short analyzers.
func (CustomResources) Long() bool { return true }

// Analyze implements analysis.Analyzer.
func (CustomResources) Analyze(ctx context.Context, c *analysis.Context) error {
	cat := catalog(c)
	var objs []*manifest.Object
	for _, o := range c.Objects().Objects() {
		if isCustom(o) && !sopsEncrypted(o) {
			objs = append(objs, o)
		}
	}
	objs = reportNoSchema(c, cat, objs)
	// With a result cache, look every object up first: only the CRD
	// versions of the objects it misses are compiled (a warm run of a small
	// app spent a fifth of its time compiling schemas it then did not use).
	probes := make([]probe, len(objs))
	toCompile := objs
	if c.ResultCache() != nil {
		if err := eachIndex(ctx, len(objs), func(i int) error {
			if cand, ok := primary(cat, objs[i]); ok {
				probes[i] = lookup(c, objs[i], customCheck(cand, objs[i]))
			}
			return nil
		}); err != nil {
			return err
		}
		toCompile = nil
		for i, o := range objs {
			if probes[i].hit == nil {
				toCompile = append(toCompile, o)
			}
		}
	}
	compileAhead(ctx, cat, toCompile)
	return eachIndex(ctx, len(objs), func(i int) error {
		return checkCustomResource(ctx, c, cat, objs[i], probes[i])
	})
}

// primary returns the CRD an object is validated against first: the
// first candidate that serves its version (false when none does, or when
// the authoritative CRD does not parse).
func primary(cat *apiserver.Catalog, o *manifest.Object) (apiserver.Candidate, bool) {
	cands := cat.Lookup(o.Group(), o.Kind)
	if len(cands) == 0 || cands[0].Err != nil {
		return apiserver.Candidate{}, false
	}
	i := served(cands, o.Version())
	if i < 0 {
		return apiserver.Candidate{}, false
	}
	return cands[i], true
}

// customCheck names the check of o against cand in the result cache's key.
func customCheck(cand apiserver.Candidate, o *manifest.Object) []string {
	return []string{"CustomResource", cand.CRD.Digest(), o.Version()}
}

// reportNoSchema reports the kinds no CRD is known for, once per kind on
// its first object (a Flux or Argo CD tree holds hundreds of
// Kustomizations, HelmReleases or Applications: one info each would bury
// the report), and returns the objects that have one.
func reportNoSchema(c *analysis.Context, cat *apiserver.Catalog, objs []*manifest.Object) []*manifest.Object {
	var first []*manifest.Object
	count := map[manifest.GroupKind]int{}
	var known []*manifest.Object
	for _, o := range objs {
		if len(cat.Lookup(o.Group(), o.Kind)) > 0 {
			known = append(known, o)
			continue
		}
		if count[o.GroupKind()] == 0 {
			first = append(first, o)
		}
		count[o.GroupKind()]++
	}
	for _, o := range first {
		more := ""
		if n := count[o.GroupKind()]; n > 1 {
			more = fmt.Sprintf(" (said once for the %d objects of this kind)", n)
		}
		c.ReportCode(o, analysis.CodeNoSchema, o.Group(), o.Kind, more)
	}
	return known
}

// compileAhead compiles the CRD versions the objects need, concurrently:
// compiling a CRD's CEL rules is the costliest step of a small app's
// validation, and the workers would otherwise meet each CRD one after the
// other. Each version compiles the rules its objects can reach. Errors
// are reported when the objects are validated.
func compileAhead(ctx context.Context, cat *apiserver.Catalog, objs []*manifest.Object) {
	type need struct {
		crd     *apiserver.CRD
		version string
	}
	bodies := map[need][]map[string]any{}
	var order []need
	for _, o := range objs {
		cands := cat.Lookup(o.Group(), o.Kind)
		i := served(cands, o.Version())
		if i < 0 {
			continue
		}
		n := need{cands[i].CRD, o.Version()}
		if _, seen := bodies[n]; !seen {
			order = append(order, n)
		}
		bodies[n] = append(bodies[n], o.Body)
	}
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for _, n := range order {
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			_ = n.crd.Compile(n.version, bodies[n]...) // an error is reported with the objects
		}()
	}
	wg.Wait()
}

// checkCustomResource validates o; pr is its look-up in the result cache
// for its primary CRD (zero without a cache).
func checkCustomResource(ctx context.Context, c *analysis.Context, cat *apiserver.Catalog, o *manifest.Object, pr probe) error {
	cands := cat.Lookup(o.Group(), o.Kind)
	if len(cands) == 0 {
		return nil // reportNoSchema said it for the kind
	}
	if cands[0].Err != nil {
		c.ReportCode(o, analysis.CodeNotFullyValidated, o.Kind, " against "+cands[0].Origin, cands[0].Err.Error())
		return nil
	}
	// Validate against the first CRD that serves the version; a version
	// none serves is validation.APIVersions' finding.
	i := served(cands, o.Version())
	if i < 0 {
		return nil
	}
	first, err := validateAgainst(ctx, c, cands[i], o, pr)
	if err != nil || first == nil {
		return err
	}
	if len(first.Violations) > 0 && i+1 < len(cands) && cands[i].Channel == "standard" {
		// The Gateway API channel is not known: what the experimental
		// channel accepts is a warning.
		if j := served(cands[i+1:], o.Version()); j >= 0 {
			exp, err := validateAgainst(ctx, c, cands[i+1+j], o, lookup(c, o, customCheck(cands[i+1+j], o)))
			if err != nil {
				return err
			}
			if exp != nil {
				reportExperimentalOnly(c, o, first, exp)
				first = exp
			}
		}
	}
	report(c, o, first, cands[i].Origin)
	return nil
}

// served returns the index of the first candidate serving version, -1 if none.
func served(cands []apiserver.Candidate, version string) int {
	for i, cand := range cands {
		if cand.CRD == nil {
			continue
		}
		if v, ok := cand.CRD.Version(version); ok && v.Served {
			return i
		}
	}
	return -1
}

// validateAgainst validates o, or takes its result from pr (its look-up
// in the result cache); a CRD whose version does not compile is an RG5008
// finding (and a nil result).
func validateAgainst(ctx context.Context, c *analysis.Context, cand apiserver.Candidate, o *manifest.Object, pr probe) (*apiserver.Result, error) {
	res, err := pr.result(c, func() (*apiserver.Result, error) {
		return cand.CRD.ValidateCustomResource(ctx, o.Version(), c.Namespace(o), o.Body)
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		c.ReportCode(o, analysis.CodeNotFullyValidated, o.Kind, "", err.Error())
		return nil, nil
	}
	return res, nil
}

// reportExperimentalOnly reports (RG5009) what the standard channel's CRD
// rejects and the experimental channel's accepts.
func reportExperimentalOnly(c *analysis.Context, o *manifest.Object, std, exp *apiserver.Result) {
	inExp := map[string]bool{}
	for _, v := range exp.Violations {
		inExp[v.String()] = true
	}
	for _, v := range std.Violations {
		if inExp[v.String()] {
			continue
		}
		c.Report(analysis.Finding{Code: analysis.CodeExperimentalChannel, Object: c.Ref(o), Source: o.FieldSource(v.Field),
			Message: fmt.Sprintf("%s: the standard channel's CRD rejects this (%s), the experimental channel's accepts it: a cluster on the standard channel fails the sync",
				fieldOrObject(v.Field), v.Message)})
	}
}

// report turns violations into findings at their fields' lines.
func report(c *analysis.Context, o *manifest.Object, res *apiserver.Result, origin string) {
	for _, v := range judgeable(c, o, res.Violations) {
		f := analysis.Finding{Object: c.Ref(o), Source: o.FieldSource(v.Field)}
		switch v.Class {
		case apiserver.UnknownField:
			f.Code = analysis.CodeFieldUnknown
			f.Message = fmt.Sprintf("unknown field %q: the schema of the %s has no such field; the API server drops it and refuses the %s under strict field validation (kubectl's and Argo CD's default); remove or correct it",
				v.Field, origin, o.Kind)
		case apiserver.Rule:
			f.Code = analysis.CodeRuleViolation
			f.Message = fmt.Sprintf("%s: %s (x-kubernetes-validations rule of the %s); the API server rejects the %s",
				fieldOrObject(v.Field), v.Message, origin, o.Kind)
		case apiserver.Uncheckable:
			f.Code = analysis.CodeNotFullyValidated
			f.Message = fmt.Sprintf("%s: a rule of the %s cannot be checked by routeguard: %s", fieldOrObject(v.Field), origin, v.Message)
		default:
			f.Code = analysis.CodeSchemaViolation
			f.Message = fmt.Sprintf("%s: %s (schema of the %s); the API server rejects the %s",
				fieldOrObject(v.Field), v.Message, origin, o.Kind)
			if res.RulesSkipped {
				f.Message += "; its CEL rules were not evaluated because of this error, as the API server does not either"
			}
		}
		c.Report(f)
	}
}

func fieldOrObject(field string) string {
	if field == "" {
		return "the object"
	}
	return field
}

// bundledKinds lists the kinds of the bundled CRDs and the CRD kind, sorted
// (a copy: the list is made once, Metadata asks for it at every analysis).
func bundledKinds() []manifest.GroupKind { return slices.Clone(bundledKindsOnce()) }

var bundledKindsOnce = sync.OnceValue(func() []manifest.GroupKind {
	return sortedKinds(append(apiserver.BundledKinds(), crdGK))
})

func sortedKinds(gks []manifest.GroupKind) []manifest.GroupKind {
	seen := map[manifest.GroupKind]bool{}
	var out []manifest.GroupKind
	for _, gk := range gks {
		if !seen[gk] {
			seen[gk] = true
			out = append(out, gk)
		}
	}
	slicesSortGK(out)
	return out
}

func slicesSortGK(gks []manifest.GroupKind) { slices.SortStableFunc(gks, compareGK) }

// compareGK orders kinds as "group/kind" strings compare, without making
// them.
func compareGK(a, b manifest.GroupKind) int {
	return compareJoined(a.Group, a.Kind, b.Group, b.Kind)
}

// compareJoined compares a1+"/"+a2 with b1+"/"+b2.
func compareJoined(a1, a2, b1, b2 string) int {
	at := func(s1, s2 string, i int) (byte, bool) {
		switch {
		case i < len(s1):
			return s1[i], true
		case i == len(s1):
			return '/', true
		case i-len(s1)-1 < len(s2):
			return s2[i-len(s1)-1], true
		}
		return 0, false
	}
	for i := 0; ; i++ {
		x, okx := at(a1, a2, i)
		y, oky := at(b1, b2, i)
		switch {
		case !okx && !oky:
			return 0
		case !okx:
			return -1
		case !oky:
			return 1
		case x != y:
			return int(x) - int(y)
		}
	}
}
