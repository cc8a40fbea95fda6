package flux

import (
	"bytes"
	"fmt"

	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"

	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Labels helm-controller's origin-labels post-renderer sets on every object.
const (
	HelmReleaseNameLabel      = HelmGroup + "/name"
	HelmReleaseNamespaceLabel = HelmGroup + "/namespace"
)

// postRenderer is helm-controller's combined post-renderer: each
// spec.postRenderers[].kustomize (patches and images) in order, then the
// origin labels. It implements helm.sh/helm/v4/pkg/postrenderer.PostRenderer.
type postRenderer struct {
	kustomizations []kustypes.Kustomization
	name, ns       string
	// spec.commonMetadata: labels and annotations set on every object.
	labels, annotations map[string]string
}

func newPostRenderer(hr *helmv2.HelmRelease) (*postRenderer, error) {
	pr := &postRenderer{name: hr.Name, ns: hr.Namespace}
	if cm := hr.Spec.CommonMetadata; cm != nil {
		pr.labels, pr.annotations = cm.Labels, cm.Annotations
	}
	for i, item := range hr.Spec.PostRenderers {
		if item.Kustomize == nil {
			continue
		}
		data, err := yaml.Marshal(item.Kustomize)
		if err != nil {
			return nil, err
		}
		var kz struct {
			Patches []kustypes.Patch `json:"patches"`
			Images  []kustypes.Image `json:"images"`
		}
		if err := yaml.UnmarshalStrict(data, &kz); err != nil {
			return nil, fmt.Errorf("spec.postRenderers[%d].kustomize: %w", i, err)
		}
		pr.kustomizations = append(pr.kustomizations, kustypes.Kustomization{
			TypeMeta: kustypes.TypeMeta{APIVersion: kustypes.KustomizationVersion, Kind: kustypes.KustomizationKind},
			Patches:  kz.Patches,
			Images:   kz.Images,
		})
	}
	return pr, nil
}

// Run applies the post-renderers to Helm's rendered manifests.
func (p *postRenderer) Run(in *bytes.Buffer) (*bytes.Buffer, error) {
	cur := in.Bytes()
	for i, k := range p.kustomizations {
		out, err := runKustomize(k, cur)
		if err != nil {
			return nil, fmt.Errorf("spec.postRenderers[%d].kustomize: %w", i, err)
		}
		cur = out
	}
	return p.originLabels(cur)
}

// runKustomize builds the rendered manifests as the only resource of k in
// memory, as helm-controller's Kustomize post-renderer does.
func runKustomize(k kustypes.Kustomization, manifests []byte) ([]byte, error) {
	fs := filesys.MakeFsInMemory()
	const input = "helm-output.yaml"
	if err := fs.WriteFile(input, manifests); err != nil {
		return nil, err
	}
	k.Resources = []string{input}
	data, err := yaml.Marshal(k)
	if err != nil {
		return nil, err
	}
	if err := fs.WriteFile("kustomization.yaml", data); err != nil {
		return nil, err
	}
	resMap, err := kustomizeBuild(fs, ".")
	if err != nil {
		return nil, err
	}
	return resMap.AsYaml()
}

// originLabels sets spec.commonMetadata and then helm-controller's origin
// labels on every object.
func (p *postRenderer) originLabels(manifests []byte) (*bytes.Buffer, error) {
	name, ns := p.name, p.ns
	objs, err := manifest.Decode("helm-output.yaml", manifests)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	for _, o := range objs {
		labels := field.EnsureMap(o.Body, "metadata", "labels")
		for k, v := range p.labels {
			labels[k] = v
		}
		if len(p.annotations) > 0 {
			ann := field.EnsureMap(o.Body, "metadata", "annotations")
			for k, v := range p.annotations {
				ann[k] = v
			}
		}
		labels[HelmReleaseNameLabel] = name
		labels[HelmReleaseNamespaceLabel] = ns
		data, err := yaml.Marshal(o.Body)
		if err != nil {
			return nil, err
		}
		out.WriteString("---\n")
		out.Write(data)
	}
	return &out, nil
}
