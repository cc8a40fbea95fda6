package validation

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/apiserver"
	"github.com/routeguard/routeguard/internal/manifest"
)

// BuiltinKinds validates objects of built-in kinds with k8s.io/kubernetes'
// validation, as kube-apiserver runs it on create (RG5006; unknown fields
// RG5005). Built-in kinds routeguard does not validate (Pod, Job, ...) are
// decoded strictly: unknown fields and values of the wrong type.
type BuiltinKinds struct{}

// Metadata implements analysis.Analyzer. The kinds listed are those
// validated in full; every other built-in kind is decoded strictly.
func (BuiltinKinds) Metadata() analysis.Metadata {
	var in []manifest.GroupKind
	for _, gvk := range apiserver.BuiltinKinds() {
		in = append(in, manifest.GroupKind{Group: gvk.Group, Kind: gvk.Kind})
	}
	return analysis.Metadata{
		Name:        "validation.BuiltinKinds",
		Description: "Validates Services, Ingresses, workloads and other built-in kinds with Kubernetes' own validation code.",
		Doc:         "Services, Ingresses, workloads, RBAC, ConfigMaps, Secrets, NetworkPolicies, PodDisruptionBudgets, CronJobs and CRDs themselves with Kubernetes' own validation (k8s.io/kubernetes v1.37.1): `RG5006`, unknown fields `RG5005`; other built-in kinds are decoded strictly. SOPS-encrypted manifests (a top-level `sops` key) are not validated by either: Flux decrypts them before applying.",
		Inputs:      sortedKinds(in),
	}
}

// Long implements analysis.Long: validation is most of the analysis of a
// large repository, and starts before the short analyzers.
func (BuiltinKinds) Long() bool { return true }

// Analyze implements analysis.Analyzer.
func (BuiltinKinds) Analyze(ctx context.Context, c *analysis.Context) error {
	var objs []*manifest.Object
	for _, o := range c.Objects().Objects() {
		if !isCustom(o) && !sopsEncrypted(o) {
			objs = append(objs, o)
		}
	}
	return each(ctx, objs, func(o *manifest.Object) error {
		gv, err := schema.ParseGroupVersion(o.APIVersion)
		if err != nil {
			return nil // validation.APIVersions reports it
		}
		var res *apiserver.Result
		if apiserver.IsBuiltinValidated(gv.WithKind(o.Kind)) {
			res, err = cached(c, o, []string{"Builtin"}, func() (*apiserver.Result, error) {
				return apiserver.ValidateBuiltin(ctx, c.Namespace(o), o.Body)
			})
		} else {
			res, err = cached(c, o, []string{"DecodeBuiltin"}, func() (*apiserver.Result, error) {
				res, _, err := apiserver.DecodeBuiltin(o.Body)
				return res, err
			})
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			c.ReportCode(o, analysis.CodeNotFullyValidated, o.Kind, "", err.Error())
			return nil
		}
		if res == nil {
			return nil
		}
		for _, v := range judgeable(c, o, res.Violations) {
			f := analysis.Finding{Object: c.Ref(o), Source: o.FieldSource(v.Field)}
			if v.Class == apiserver.UnknownField {
				f.Code = analysis.CodeFieldUnknown
				f.Message = fmt.Sprintf("unknown field %q: %s %s has no such field; the API server refuses the object under strict field validation (kubectl's and Argo CD's default); remove or correct it",
					v.Field, o.APIVersion, o.Kind)
			} else {
				f.Code = analysis.CodeBuiltinInvalid
				f.Message = fmt.Sprintf("%s: %s; the API server rejects the %s", fieldOrObject(v.Field), v.Message, o.Kind)
			}
			c.Report(f)
		}
		return nil
	})
}
