package validation

import (
	"context"
	"fmt"
	"runtime"
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
