package flux

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/strvals"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/charts"
	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/render"
)

// decodeHelmRelease converts a HelmRelease to helm-controller's typed API
// object, as the API server holds it.
func decodeHelmRelease(o *manifest.Object) (*helmv2.HelmRelease, error) {
	if err := metadataStrings(o); err != nil {
		return nil, err
	}
	var hr helmv2.HelmRelease
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Body, &hr); err != nil {
		return nil, fmt.Errorf("does not decode as a Flux HelmRelease: %w", err)
	}
	return &hr, nil
}

// buildHelmRelease renders a HelmRelease as helm-controller would: release
// name spec.releaseName, else [targetNamespace-]name (shortened past 53
// characters as helm-controller does); namespace spec.targetNamespace,
// else the HelmRelease's; values from valuesFrom in order, then
// spec.values; the chart's CRDs unless install.crds is Skip; then
// spec.postRenderers (Kustomize patches and images), commonMetadata and
// helm-controller's origin labels, through Helm's post-render step.
func (b *nodeRender) buildHelmRelease(ctx context.Context, n *Node) ([]*manifest.Object, error) {
	hr, err := decodeHelmRelease(n.Object)
	if err != nil {
		return nil, err
	}
	cs, err := b.chartOf(ctx, hr)
	if err != nil {
		return nil, err
	}
	if cs.origin != nil && cs.origin.self {
		n.Dir = cs.origin.realDir(cs.dir)
	}
	var trace *confine.Trace
	if cs.origin != nil {
		var traced func()
		trace, traced = b.originTrace(n, cs.origin)
		defer traced()
	}
	values, unread, err := b.helmValues(n, hr)
	if err != nil {
		return nil, err
	}
	pr, err := newPostRenderer(hr)
	if err != nil {
		return nil, err
	}
	namespace := cmp.Or(hr.GetReleaseNamespace(), "default")
	install := hr.GetInstall()
	root := b.root
	if cs.origin != nil {
		root = cs.origin.dir
	}
	set, missing, err := render.RenderRelease(ctx, root, cs.dir, render.ReleaseOptions{
		Name:                     shortenReleaseName(hr.GetReleaseName()),
		Namespace:                namespace,
		ValuesFiles:              cs.valuesFiles,
		IgnoreMissingValuesFiles: cs.ignoreMissing,
		Values:                   values,
		Archive:                  cs.archive,
		KubeVersion:              b.opts.KubeVersion,
		PostRenderer:             pr,
		SkipCRDs:                 install.SkipCRDs || install.CRDs == helmv2.Skip,
		Dependencies:             b.dependencyFetcher(),
		SkipMissingDependencies:  true,
		Trace:                    trace,
	})
	var md *render.MissingDependenciesError
	if errors.As(err, &md) {
		return nil, skip(skipChartDependencies, "%s: its chart's dependencies are not vendored under charts/ and cannot be fetched here, and the chart renders nothing without them (%v); source-controller builds them; pass --fetch-charts (and --chart-cache DIR), or vendor them", cs.what, md)
	}
	if missing != nil {
		n.Partial = append(n.Partial, fmt.Sprintf("%s: rendered without its chart dependencies %s, which are not vendored under charts/ and cannot be fetched here (source-controller builds them); what they install in namespace %q cannot be checked; pass --fetch-charts (and --chart-cache DIR), or vendor them", cs.what, dependencyNames(missing), namespace))
		for _, u := range UnbuiltScopes(n.Object, "is rendered without its chart dependencies "+dependencyNames(missing)) {
			for _, d := range missing.Missing {
				u.Makers = append(u.Makers, d.Name)
			}
			n.Unrendered = append(n.Unrendered, u)
		}
	}
	if err != nil {
		if len(unread) > 0 {
			// The values the cluster holds may be what the chart needs.
			return nil, skip("values only in the cluster", "%s does not render without the values of %s, which only the cluster holds (%v)", cs.what, strings.Join(unread, ", "), err)
		}
		return nil, fmt.Errorf("%s: %w", cs.what, err)
	}
	// Helm leaves the namespace of namespaced objects to the client (helm
	// install -n); helm-controller applies them in the release namespace.
	var out []*manifest.Object
	for _, o := range set.Objects() {
		if o.Namespace == "" && !clusterScoped(o) {
			o.SetNamespace(namespace)
		}
		if cs.origin != nil {
			o.Source.File = cs.origin.display(o.Source.File)
		} else {
			o.Source.File = cs.what + ": " + o.Source.File
		}
		out = append(out, o)
	}
	return out, nil
}

// shortenReleaseName is helm-controller's release.ShortenName: names over
// 53 characters become their first 40, a dash and 12 hex digits of their
// SHA-256.
func shortenReleaseName(name string) string {
	if len(name) <= 53 {
		return name
	}
	sum := fmt.Sprintf("%x", sha256.Sum256([]byte(name)))
	return name[:53-13] + "-" + sum[:12]
}

// helmValues merges spec.valuesFrom in order and spec.values last, as
// helm-controller's chartutil.ChartValuesFromReferences does. A reference
// only the cluster can resolve (a Secret an ExternalSecret makes, or one
// not in the repository) is left out; unread names them.
func (b *nodeRender) helmValues(n *Node, hr *helmv2.HelmRelease) (map[string]any, []string, error) {
	out := map[string]any{}
	var unread []string
	for i, r := range hr.Spec.ValuesFrom {
		key := nsName{hr.Namespace, r.Name}
		valuesKey := cmp.Or(r.ValuesKey, "values.yaml")
		where := fmt.Sprintf("spec.valuesFrom[%d]", i)
		var value []byte
		found := false
		switch r.Kind {
		case "ConfigMap":
			if o, ok := b.state.lookup("ConfigMap", key.ns, key.name); ok {
				data := configMapData(o)
				v, ok := data[valuesKey]
				if !ok && !r.Optional {
					return nil, nil, fmt.Errorf("%s: ConfigMap %s (%s) has no key %q", where, key, o.Source, valuesKey)
				}
				value, found = []byte(v), ok
			} else if !r.Optional {
				unread = append(unread, b.unreadValues(n, where, "ConfigMap", key, "not in the repository"))
			}
		case "Secret":
			if maker, ok := b.state.madeBy(key.ns, key.name); ok {
				if !r.Optional {
					unread = append(unread, b.unreadValues(n, where, "Secret", key, "made in the cluster by "+maker))
				}
				continue
			}
			if o, ok := b.state.lookup("Secret", key.ns, key.name); ok {
				data, err := secretData(o)
				if err != nil {
					return nil, nil, fmt.Errorf("%s: %w", where, err)
				}
				v, ok := data[valuesKey]
				if !ok && !r.Optional {
					return nil, nil, fmt.Errorf("%s: Secret %s (%s) has no key %q", where, key, o.Source, valuesKey)
				}
				value, found = v, ok
			} else if !r.Optional {
				unread = append(unread, b.unreadValues(n, where, "Secret", key, "not in the repository"))
			}
		default:
			return nil, nil, fmt.Errorf("%s: kind %q must be ConfigMap or Secret", where, r.Kind)
		}
		if !found {
			continue
		}
		if r.TargetPath != "" {
			if err := strvals.ParseIntoString(r.TargetPath+"="+string(value), out); err != nil {
				return nil, nil, fmt.Errorf("%s: targetPath %q: %w", where, r.TargetPath, err)
			}
			continue
		}
		cur := map[string]any{}
		if err := yaml.Unmarshal(value, &cur); err != nil {
			return nil, nil, fmt.Errorf("%s: %s %s key %q is not a YAML map of values (content not shown): %v", where, r.Kind, key, valuesKey, redactYAMLError(err))
		}
		out = loader.MergeMaps(out, cur)
	}
	out = loader.MergeMaps(out, hr.GetValues())
	return out, unread, nil
}

// unreadValues records a valuesFrom source only the cluster has.
func (b *nodeRender) unreadValues(n *Node, where, kind string, key nsName, why string) string {
	n.clusterSources = append(n.clusterSources, &clusterSource{Kind: kind, Key: key, Why: why, values: true})
	if why == "not in the repository" {
		n.findings = append(n.findings, analysis.Finding{Code: analysis.CodeClusterOnlySource, Object: analysis.RefOf(n.Object), Source: n.Object.Source}.Fill(where, kind, key.String(), "the chart is rendered without its values; if nothing creates it, helm-controller fails"))
	}
	return kind + " " + key.String()
}

// redactYAMLError keeps the position of a YAML error and drops any quoted
// content, which could be a Secret's.
func redactYAMLError(err error) string {
	msg := err.Error()
	if i := strings.IndexAny(msg, "`'\""); i >= 0 {
		return strings.TrimSpace(msg[:i])
	}
	return msg
}

// clusterScoped lists the cluster-scoped kinds a chart commonly renders.
func clusterScoped(o *manifest.Object) bool {
	switch o.Kind {
	case "Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding", "PriorityClass",
		"StorageClass", "PersistentVolume", "IngressClass", "GatewayClass", "ValidatingWebhookConfiguration",
		"MutatingWebhookConfiguration", "APIService", "RuntimeClass", "ClusterIssuer", "ValidatingAdmissionPolicy",
		"ValidatingAdmissionPolicyBinding", "CSIDriver", "VolumeSnapshotClass":
		return true
	}
	return false
}

// dependencyNames names chart dependencies left out, for messages.
func dependencyNames(m *render.MissingDependenciesError) string {
	parts := make([]string, len(m.Missing))
	for i, d := range m.Missing {
		parts[i] = d.String()
	}
	return strings.Join(parts, ", ")
}

// dependencyFetcher fetches chart dependencies through the chart cache
// (nil without one: only file:// dependencies are built).
func (b *sources) dependencyFetcher() render.DependencyFetcher {
	if b.charts == nil {
		return nil
	}
	return chartDependencies{b.charts}
}

type chartDependencies struct{ c *charts.Cache }

func (d chartDependencies) FetchDependency(ctx context.Context, dep render.ChartDependency) (string, error) {
	ch, err := d.c.Fetch(ctx, charts.Ref{RepoURL: dep.Repository, Name: dep.Name, Version: dep.Version})
	if err != nil {
		return "", err
	}
	return ch.Path, nil
}
