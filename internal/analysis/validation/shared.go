package validation

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/apiserver"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/substitute"
)

var crdGK = manifest.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// catalog returns the run's CRD catalog, built once and shared by the
// package's analyzers.
func catalog(c *analysis.Context) *apiserver.Catalog {
	return c.Memo("validation.catalog", func() any {
		k := c.Cluster()
		return apiserver.NewCatalog(apiserver.CatalogOptions{
			App:               c.Objects().ByKind(crdGK.Group, crdGK.Kind),
			Context:           c.ContextObjects().ByKind(crdGK.Group, crdGK.Kind),
			Cluster:           k.CRDs,
			GatewayAPIChannel: k.GatewayAPIChannel,
		})
	}).(*apiserver.Catalog)
}

// kubeVersion returns the target cluster's version (the runner has
// validated it).
func kubeVersion(c *analysis.Context) apiserver.KubeVersion {
	v, _ := apiserver.ParseKubeVersion(c.Cluster().KubeVersion)
	return v
}

// isCustom reports whether o is a custom resource (its group is not one of
// Kubernetes' own).
func isCustom(o *manifest.Object) bool { return !apiserver.IsBuiltinGroup(o.Group()) }

// each runs fn over objs on GOMAXPROCS workers: validation is the costliest
// analysis per object, and objects are independent. Findings are sorted by
// the runner.
func each(ctx context.Context, objs []*manifest.Object, fn func(o *manifest.Object) error) error {
	return eachIndex(ctx, len(objs), func(i int) error { return fn(objs[i]) })
}

// eachIndex is each over the indexes 0..n-1.
func eachIndex(ctx context.Context, n int, fn func(i int) error) error {
	workers := min(runtime.GOMAXPROCS(0), 1+n/64)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					errs[w] = fmt.Errorf("validation panicked: %v (this is a routeguard bug; please report it with the input)", r)
				}
			}()
			for i := w; i < n; i += workers {
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				if err := fn(i); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// sopsEncrypted reports a SOPS-encrypted manifest: Flux's
// kustomize-controller decrypts it before applying (the sops key goes and
// the values become plain), so its ciphertext says nothing about what the
// API server receives, and is not validated.
func sopsEncrypted(o *manifest.Object) bool {
	_, ok := o.Body["sops"]
	return ok
}

// judgeable returns the violations that routeguard can judge:
//
//   - not those involving a placeholder (substitute.PlaceholderPrefix) that
//     `flux build` substituted for a variable only the cluster holds (a
//     substituteFrom Secret made by an ExternalSecret or SOPS, an optional
//     source not in the repository): "routeguard-unset-lan-cidr" is not a
//     CIDR, the cluster's value may well be;
//   - when Flux substitutes on apply (the objects were not built by
//     `flux build`), not those involving a variable reference (${VAR},
//     ${VAR:=default}): "*.${SECRET_DOMAIN}" is not a hostname, the
//     substituted value may well be.
//
// The others are reported once per object and reason as RG5008 at info
// severity, naming the first, so that nothing goes unsaid.
func judgeable(c *analysis.Context, o *manifest.Object, vs []apiserver.Violation) []apiserver.Violation {
	onApply := c.Cluster().SubstitutedOnApply
	var out, unset, deferred []apiserver.Violation
	for _, v := range vs {
		switch {
		case involves(o, v, substitute.PlaceholderPrefix):
			unset = append(unset, v)
		case onApply && involves(o, v, "${"):
			deferred = append(deferred, v)
		default:
			out = append(out, v)
		}
	}
	notJudged := func(vs []apiserver.Violation, why, how string) {
		if len(vs) == 0 {
			return
		}
		v := vs[0]
		c.Report(analysis.Finding{Code: analysis.CodeNotFullyValidated, Severity: analysis.SeverityInfo, Object: c.Ref(o),
			Source: o.FieldSource(v.Field),
			Message: fmt.Sprintf("%d validation result(s) involve %s and were not judged (first: %s: %s); %s",
				len(vs), why, fieldOrObject(v.Field), v.Message, how)})
	}
	notJudged(unset, "placeholders ("+substitute.PlaceholderPrefix+"<name>) for variables only the cluster holds",
		"give their values with --var NAME=VALUE or --vars-file to validate them")
	notJudged(deferred, "${...} variables that Flux substitutes at apply time",
		"`routeguard flux build` validates the substituted objects")
	return out
}

// involves reports a violation that a value holding marker may explain:
// its value holds one, or (a CEL rule, a oneOf: no single value) the
// object does.
func involves(o *manifest.Object, v apiserver.Violation, marker string) bool {
	switch {
	case v.Scalar:
		return strings.Contains(v.Value, marker)
	case v.Missing, v.Class == apiserver.UnknownField:
		return false
	}
	return holds(o.Body, marker)
}

func holds(v any, marker string) bool {
	switch t := v.(type) {
	case string:
		return strings.Contains(t, marker)
	case map[string]any:
		for _, e := range t {
			if holds(e, marker) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if holds(e, marker) {
				return true
			}
		}
	}
	return false
}
