package flux

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/strvals"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/substitute"
)

// BuildHelmRelease renders a HelmRelease whose chart is in the repository
// as helm-controller would: release name spec.releaseName, else
// [targetNamespace-]name; namespace spec.targetNamespace, else the
// HelmRelease's; values from valuesFrom in order, then spec.values; and
// spec.postRenderers (Kustomize patches and images) followed by
// helm-controller's origin labels, run through Helm's post-render step.
func (inv *Inventory) BuildHelmRelease(ctx context.Context, hr *manifest.Object, opts Options) (*manifest.Set, error) {
	set, err := inv.buildHelmRelease(ctx, hr, opts)
	if err != nil {
		if _, skip := err.(*SkipError); skip {
			return nil, err
		}
		return nil, &BuildError{Object: hr, Err: err}
	}
	return set, nil
}

func (inv *Inventory) buildHelmRelease(ctx context.Context, hr *manifest.Object, opts Options) (*manifest.Set, error) {
	spec, _ := hr.Body["spec"].(map[string]any)
	chartDir, valuesFiles, remote, err := inv.chartSource(hr, opts)
	if err != nil {
		return nil, err
	}
	archive := ""
	if remote != nil {
		dir, cleanup, err := tempDir()
		if err != nil {
			return nil, err
		}
		defer cleanup()
		if archive, err = remote.fetch(ctx, dir); err != nil {
			return nil, err
		}
	}
	values, err := inv.helmValues(hr)
	if err != nil {
		return nil, err
	}
	pr, err := newPostRenderer(hr)
	if err != nil {
		return nil, err
	}
	targetNS, _ := spec["targetNamespace"].(string)
	namespace := cmp.Or(targetNS, hr.Namespace, "default")
	set, err := render.RenderRelease(ctx, inv.RepoRoot, filepath.Join(inv.RepoRoot, filepath.FromSlash(chartDir)), render.ReleaseOptions{
		Name:         releaseName(hr),
		Namespace:    namespace,
		ValuesFiles:  valuesFiles,
		Values:       values,
		Archive:      archive,
		KubeVersion:  opts.KubeVersion,
		PostRenderer: pr,
	})
	if err != nil {
		return nil, err
	}
	// Helm leaves the namespace of namespaced objects to the client (helm
	// install -n); helm-controller applies them in the release namespace.
	out := manifest.NewSet()
	for _, o := range set.Objects() {
		if o.Namespace == "" && !clusterScoped(o) {
			o.SetNamespace(namespace)
		}
		if err := out.Add(o); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// releaseName is helm-controller's GetReleaseName (shortened as it does
// when over 53 characters is not needed for repository charts' names here).
func releaseName(hr *manifest.Object) string {
	spec, _ := hr.Body["spec"].(map[string]any)
	if n, _ := spec["releaseName"].(string); n != "" {
		return n
	}
	if ns, _ := spec["targetNamespace"].(string); ns != "" {
		return ns + "-" + hr.Name
	}
	return hr.Name
}

// chartSource finds the chart directory in the repository: spec.chart.spec
// with a GitRepository sourceRef, or spec.chartRef to a HelmChart whose
// source is a GitRepository. Charts only a registry holds are skipped.
func (inv *Inventory) chartSource(hr *manifest.Object, opts Options) (string, []string, *remoteChart, error) {
	spec, _ := hr.Body["spec"].(map[string]any)
	if ref, ok := spec["chartRef"].(map[string]any); ok {
		kind, _ := ref["kind"].(string)
		name, _ := ref["name"].(string)
		ns, _ := ref["namespace"].(string)
		ns = cmp.Or(ns, hr.Namespace)
		if kind != "HelmChart" {
			return "", nil, nil, &SkipError{Reason: fmt.Sprintf("its chart comes from %s %s/%s, a registry routeguard does not fetch; render it in CI with the chart vendored in the repository", kind, ns, name)}
		}
		hc, ok := inv.Sources[manifest.Key{Group: SourceGroup, Kind: "HelmChart", Namespace: ns, Name: name}]
		if !ok {
			return "", nil, nil, fmt.Errorf("spec.chartRef: HelmChart %s/%s is not in the repository (looked under %s)", ns, name, inv.Dir)
		}
		hcSpec, _ := hc.Body["spec"].(map[string]any)
		return inv.chartFromSpec(hc, hcSpec, "HelmChart "+ns+"/"+name, opts)
	}
	chart, _ := spec["chart"].(map[string]any)
	cs, ok := chart["spec"].(map[string]any)
	if !ok {
		return "", nil, nil, fmt.Errorf("neither spec.chart.spec nor spec.chartRef is set; name the chart")
	}
	return inv.chartFromSpec(hr, cs, "spec.chart.spec", opts)
}

func (inv *Inventory) chartFromSpec(owner *manifest.Object, cs map[string]any, where string, opts Options) (string, []string, *remoteChart, error) {
	ref, _ := cs["sourceRef"].(map[string]any)
	kind, _ := ref["kind"].(string)
	name, _ := cs["chart"].(string)
	if kind == "HelmRepository" {
		if !opts.AllowNetwork {
			return "", nil, nil, &SkipError{Reason: fmt.Sprintf("chart %q comes from a HelmRepository, which cannot be rendered offline; pass --allow-network to fetch it", name)}
		}
		remote, err := inv.helmRepositoryChart(owner, cs)
		return "", nil, remote, err
	}
	if kind != "GitRepository" {
		return "", nil, nil, &SkipError{Reason: fmt.Sprintf("chart %q comes from %s, which cannot be rendered offline (only charts in this repository, sourceRef kind GitRepository, and with --allow-network HelmRepository charts, are)", name, aKind(kind))}
	}
	if name == "" {
		return "", nil, nil, fmt.Errorf("%s.chart is empty; give the chart's path in the repository", where)
	}
	var files []string
	if vf, ok := cs["valuesFiles"].([]any); ok {
		for _, f := range vf {
			s, _ := f.(string)
			// valuesFiles are relative to the repository root; make them
			// relative to the chart, as render.ReleaseOptions takes them.
			rel, err := filepath.Rel(filepath.FromSlash(strings.TrimPrefix(name, "./")), filepath.FromSlash(strings.TrimPrefix(s, "./")))
			if err != nil {
				return "", nil, nil, fmt.Errorf("%s.valuesFiles %q: %w", where, s, err)
			}
			files = append(files, rel)
		}
	}
	return name, files, nil, nil
}

// helmValues merges spec.valuesFrom in order and spec.values last, as
// helm-controller's chartutil.ChartValuesFromReferences does.
func (inv *Inventory) helmValues(hr *manifest.Object) (map[string]any, error) {
	spec, _ := hr.Body["spec"].(map[string]any)
	out := map[string]any{}
	refs, _ := spec["valuesFrom"].([]any)
	for i, r := range refs {
		rm, _ := r.(map[string]any)
		kind, _ := rm["kind"].(string)
		name, _ := rm["name"].(string)
		key, _ := rm["valuesKey"].(string)
		key = cmp.Or(key, "values.yaml")
		targetPath, _ := rm["targetPath"].(string)
		optional, _ := rm["optional"].(bool)
		n := substitute.NamespacedName{Namespace: hr.Namespace, Name: name}
		var value []byte
		var found bool
		switch kind {
		case "ConfigMap":
			if o, ok := inv.ConfigMaps[n]; ok {
				m, _ := o.Body["data"].(map[string]any)
				if v, ok := m[key]; ok {
					value, found = []byte(scalarString(v)), true
				} else if !optional {
					return nil, fmt.Errorf("spec.valuesFrom[%d]: ConfigMap %s (%s) has no key %q", i, n, o.Source, key)
				}
			} else if !optional {
				return nil, fmt.Errorf("spec.valuesFrom[%d]: ConfigMap %s is not in the repository (looked under %s); add it there, or mark it optional: true", i, n, inv.Dir)
			}
		case "Secret":
			if o, ok := inv.Secrets[n]; ok {
				data, err := secretData(o)
				if err != nil {
					return nil, err
				}
				if v, ok := data[key]; ok {
					value, found = v, true
				} else if !optional {
					return nil, fmt.Errorf("spec.valuesFrom[%d]: Secret %s (%s) has no key %q", i, n, o.Source, key)
				}
			} else if !optional {
				return nil, fmt.Errorf("spec.valuesFrom[%d]: Secret %s is not in the repository (looked under %s); add it there, or mark it optional: true", i, n, inv.Dir)
			}
		default:
			return nil, fmt.Errorf("spec.valuesFrom[%d]: kind %q must be ConfigMap or Secret", i, kind)
		}
		if !found {
			continue
		}
		if targetPath != "" {
			if err := strvals.ParseIntoString(targetPath+"="+string(value), out); err != nil {
				return nil, fmt.Errorf("spec.valuesFrom[%d]: targetPath %q: %w", i, targetPath, err)
			}
			continue
		}
		cur := map[string]any{}
		if err := yaml.Unmarshal(value, &cur); err != nil {
			return nil, fmt.Errorf("spec.valuesFrom[%d]: %s %s key %q is not a YAML map of values (content not shown): %v", i, kind, n, key, redactYAMLError(err))
		}
		out = loader.MergeMaps(out, cur)
	}
	if v, ok := spec["values"].(map[string]any); ok {
		out = loader.MergeMaps(out, deepCopy(v))
	}
	return out, nil
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

func deepCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch x := v.(type) {
		case map[string]any:
			out[k] = deepCopy(x)
		case []any:
			s := make([]any, len(x))
			copy(s, x)
			out[k] = s
		default:
			out[k] = v
		}
	}
	return out
}

// clusterScoped lists the cluster-scoped kinds a chart commonly renders.
func clusterScoped(o *manifest.Object) bool {
	switch o.Kind {
	case "Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding", "PriorityClass",
		"StorageClass", "PersistentVolume", "IngressClass", "GatewayClass", "ValidatingWebhookConfiguration",
		"MutatingWebhookConfiguration", "APIService", "RuntimeClass":
		return true
	}
	return false
}

// chartPath is spec.chart.spec.chart of a HelmRelease ("" when absent).
func chartPath(o *manifest.Object) string {
	spec, _ := o.Body["spec"].(map[string]any)
	chart, _ := spec["chart"].(map[string]any)
	cs, _ := chart["spec"].(map[string]any)
	s, _ := cs["chart"].(string)
	return s
}
