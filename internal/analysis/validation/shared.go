package validation

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/validate"
)

var crdGK = manifest.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// catalog returns the run's CRD catalog, built once and shared by the
// package's analyzers.
func catalog(c *analysis.Context) *validate.Catalog {
	return c.Memo("validation.catalog", func() any {
		k := c.Cluster()
		return validate.NewCatalog(validate.CatalogOptions{
			App:               c.Objects().ByKind(crdGK.Group, crdGK.Kind),
			Context:           c.ContextObjects().ByKind(crdGK.Group, crdGK.Kind),
			Cluster:           k.CRDs,
			GatewayAPIChannel: k.GatewayAPIChannel,
		})
	}).(*validate.Catalog)
}

// kubeVersion returns the target cluster's version (the runner has
// validated it).
func kubeVersion(c *analysis.Context) validate.KubeVersion {
	v, _ := validate.ParseKubeVersion(c.Cluster().KubeVersion)
	return v
}

// isCustom reports whether o is a custom resource (its group is not one of
// Kubernetes' own).
func isCustom(o *manifest.Object) bool { return !validate.IsBuiltinGroup(o.Group()) }

// each runs fn over objs on GOMAXPROCS workers: validation is the costliest
// analysis per object, and objects are independent. Findings are sorted by
// the runner.
func each(ctx context.Context, objs []*manifest.Object, fn func(o *manifest.Object) error) error {
	workers := min(runtime.GOMAXPROCS(0), 1+len(objs)/64)
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
			for i := w; i < len(objs); i += workers {
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				if err := fn(objs[i]); err != nil {
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

// judgeable returns the violations that do not involve a variable
// reference (${VAR}, ${VAR:=default}) left for Flux's postBuild
// substitution, which replaces it before the API server sees the object:
// "*.${SECRET_DOMAIN}" is not a hostname, the substituted value may well
// be. The others are reported once per object as RG5008 at info severity,
// naming the first, so that nothing goes unsaid; `routeguard flux build`
// validates the substituted objects.
func judgeable(c *analysis.Context, o *manifest.Object, vs []validate.Violation) []validate.Violation {
	var out, deferred []validate.Violation
	for _, v := range vs {
		if awaitsSubstitution(o, v) {
			deferred = append(deferred, v)
		} else {
			out = append(out, v)
		}
	}
	if len(deferred) > 0 {
		v := deferred[0]
		c.Report(analysis.Finding{Code: analysis.CodeNotFullyValidated, Severity: analysis.SeverityInfo, Object: c.Ref(o),
			Source: o.FieldSource(v.Field),
			Message: fmt.Sprintf("%d validation result(s) involve ${...} variables that Flux substitutes at apply time and were not judged (first: %s: %s); `routeguard flux build` validates the substituted objects",
				len(deferred), fieldOrObject(v.Field), v.Message)})
	}
	return out
}

// awaitsSubstitution reports a violation that an unsubstituted variable
// may explain: its value holds one, or (a CEL rule, a oneOf: no single
// value) the object does.
func awaitsSubstitution(o *manifest.Object, v validate.Violation) bool {
	switch {
	case v.Scalar:
		return strings.Contains(v.Value, "${")
	case v.Missing, v.Class == validate.UnknownField:
		return false
	}
	return holdsVariable(o.Body)
}

func holdsVariable(v any) bool {
	switch t := v.(type) {
	case string:
		return strings.Contains(t, "${")
	case map[string]any:
		for _, e := range t {
			if holdsVariable(e) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if holdsVariable(e) {
				return true
			}
		}
	}
	return false
}
