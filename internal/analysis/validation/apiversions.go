package validation

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/apiserver"
	"github.com/routeguard/routeguard/internal/manifest"
)

// APIVersions reports apiVersions the target cluster does not serve
// (RG5003) or deprecates (RG5004): built-in ones by the Kubernetes version
// (--kube-version, KUBE_VERSION) and the lifecycle Kubernetes records for
// its API types, custom ones by their CRD's served and deprecated versions,
// and any not among the cluster's API versions when those are known
// (KUBE_API_VERSIONS).
type APIVersions struct{}

// Metadata implements analysis.Analyzer. It reads every object; the kinds
// listed are those of the bundled CRDs.
func (APIVersions) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "validation.APIVersions",
		Description: "Finds apiVersions the target cluster does not serve or deprecates, by its Kubernetes version and CRDs.",
		Doc:         "apiVersions the target cluster does not serve (`RG5003`) or deprecates (`RG5004`): built-in ones by `--kube-version`/`KUBE_VERSION`, custom ones by their CRD, and (under Argo CD) any not in `KUBE_API_VERSIONS`.",
		Inputs:      bundledKinds(),
	}
}

// Analyze implements analysis.Analyzer.
func (APIVersions) Analyze(ctx context.Context, c *analysis.Context) error {
	kv := kubeVersion(c)
	served := apiVersionSet(c.Cluster().APIVersions)
	cat := catalog(c)
	appCRDs := appServedVersions(c)
	for _, o := range c.Objects().Objects() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if sopsEncrypted(o) {
			// kustomize-controller decrypts it first; its apiVersion and
			// kind may be ciphertext until then.
			continue
		}
		gv, err := schema.ParseGroupVersion(o.APIVersion)
		if err != nil {
			c.ReportCode(o, analysis.CodeVersionNotServed, strconv.Quote(o.APIVersion), o.Kind, "is not a group/version", err.Error())
			continue
		}
		if served != nil && !served[gv.String()] && !appCRDs[gv.WithKind(o.Kind)] {
			c.ReportCode(o, analysis.CodeVersionNotServed, gv.String(), o.Kind, "is not served",
				"it is not among the cluster's API versions (KUBE_API_VERSIONS), and no CRD of this app defines it")
			continue
		}
		if isCustom(o) {
			checkCustomVersion(c, cat, o)
		} else {
			checkBuiltinVersion(c, kv, gv.WithKind(o.Kind), o)
		}
	}
	return nil
}

func checkBuiltinVersion(c *analysis.Context, kv apiserver.KubeVersion, gvk schema.GroupVersionKind, o *manifest.Object) {
	st := apiserver.BuiltinAPI(gvk, kv)
	at := o.FieldSource("apiVersion")
	switch {
	case !st.Served && st.Certain:
		c.Report(analysis.Finding{Code: analysis.CodeVersionNotServed, Object: c.Ref(o), Source: at}.Fill(gvk.GroupVersion().String(), gvk.Kind, "is not served by Kubernetes "+kv.String(), st.Detail))
	case !st.Served:
		// The cluster's version decides, and routeguard does not know it
		// (or knows only that it is older than the data it has).
		verdict := "may not be served (Kubernetes version unknown: --kube-version)"
		if kv.Known() {
			verdict = "may not be served by Kubernetes " + kv.String()
		}
		c.Report(analysis.Finding{Code: analysis.CodeVersionNotServed, Severity: analysis.SeverityWarning, Object: c.Ref(o), Source: at}.Fill(gvk.GroupVersion().String(), gvk.Kind, verdict, st.Detail))
	case st.Deprecated:
		c.Report(analysis.Finding{Code: analysis.CodeVersionDeprecated, Object: c.Ref(o), Source: at,
			Message: fmt.Sprintf("%s %s is %s", gvk.GroupVersion(), gvk.Kind, st.Detail)})
	}
}

func checkCustomVersion(c *analysis.Context, cat *apiserver.Catalog, o *manifest.Object) {
	cands := cat.Lookup(o.Group(), o.Kind)
	if len(cands) == 0 || cands[0].Err != nil {
		return // validation.CustomResources says it cannot check
	}
	at := o.FieldSource("apiVersion")
	for i, cand := range cands {
		if cand.CRD == nil {
			continue
		}
		v, ok := cand.CRD.Version(o.Version())
		if !ok || !v.Served {
			continue
		}
		if i > 0 && cands[0].Channel == "standard" {
			c.Report(analysis.Finding{Code: analysis.CodeExperimentalChannel, Object: c.Ref(o), Source: at,
				Message: fmt.Sprintf("%s %s is served only by the experimental channel's CRD (%s), not the standard channel's, which serves %s: a cluster on the standard channel fails the sync",
					o.APIVersion, o.Kind, cand.Origin, versions(cands[0].CRD))})
		}
		if v.Deprecated {
			msg := fmt.Sprintf("%s %s is deprecated by the %s", o.APIVersion, o.Kind, cand.Origin)
			if v.DeprecationWarning != "" {
				msg += ": " + strings.TrimSuffix(v.DeprecationWarning, ".")
			}
			if others := undeprecated(cand.CRD); others != "" {
				msg += "; move to " + others
			}
			c.Report(analysis.Finding{Code: analysis.CodeVersionDeprecated, Object: c.Ref(o), Source: at, Message: msg})
		}
		return
	}
	if cands[0].Controller {
		// Flux and Argo CD drop API versions across releases; the cluster
		// may run an older one that still serves this version.
		c.Report(analysis.Finding{Code: analysis.CodeVersionNotServed, Severity: analysis.SeverityWarning, Object: c.Ref(o), Source: at}.Fill(o.APIVersion, o.Kind, "may not be served",
			fmt.Sprintf("the %s serves %s; a cluster running that release fails the sync", cands[0].Origin, versions(cands[0].CRD))))
		return
	}
	c.Report(analysis.Finding{Code: analysis.CodeVersionNotServed, Object: c.Ref(o), Source: at}.Fill(o.APIVersion, o.Kind, "is not served",
		fmt.Sprintf("the %s serves %s", cands[0].Origin, versions(cands[0].CRD))))
}

// versions lists a CRD's served versions as group/version.
func versions(crd *apiserver.CRD) string {
	var out []string
	for _, v := range crd.ServedVersions() {
		out = append(out, crd.Group+"/"+v)
	}
	if len(out) == 0 {
		return "no version"
	}
	return strings.Join(out, ", ")
}

// undeprecated lists a CRD's served versions that are not deprecated.
func undeprecated(crd *apiserver.CRD) string {
	var out []string
	for _, name := range crd.ServedVersions() {
		if v, _ := crd.Version(name); !v.Deprecated {
			out = append(out, crd.Group+"/"+name)
		}
	}
	return strings.Join(out, " or ")
}

// apiVersionSet turns Argo CD's KUBE_API_VERSIONS entries ("apps/v1",
// "apps/v1/Deployment", "v1") into a set of group/versions; nil when none
// are known.
func apiVersionSet(list []string) map[string]bool {
	if len(list) == 0 {
		return nil
	}
	out := map[string]bool{}
	for _, s := range list {
		s = strings.TrimSpace(s)
		parts := strings.Split(s, "/")
		switch {
		case len(parts) == 3: // group/version/Kind
			out[parts[0]+"/"+parts[1]] = true
		case len(parts) == 2 && parts[1] != "" && parts[1][0] >= 'A' && parts[1][0] <= 'Z': // v1/Kind
			out[parts[0]] = true
		case s != "":
			out[s] = true
		}
	}
	return out
}

// appServedVersions returns the group/version/kinds the app's own CRDs
// serve: the sync installs them, so the cluster need not serve them yet.
func appServedVersions(c *analysis.Context) map[schema.GroupVersionKind]bool {
	out := map[schema.GroupVersionKind]bool{}
	for _, o := range c.Objects().ByKind(crdGK.Group, crdGK.Kind) {
		spec, _ := o.Body["spec"].(map[string]any)
		group, _ := spec["group"].(string)
		names, _ := spec["names"].(map[string]any)
		kind, _ := names["kind"].(string)
		vs, _ := spec["versions"].([]any)
		for _, v := range vs {
			vm, _ := v.(map[string]any)
			name, _ := vm["name"].(string)
			if s, _ := vm["served"].(bool); s && name != "" {
				out[schema.GroupVersionKind{Group: group, Version: name, Kind: kind}] = true
			}
		}
	}
	return out
}
