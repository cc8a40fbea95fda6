package flux

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// ControlPlaneGroup is flux-operator's API group (FluxInstance,
// ResourceSet, ResourceSetInputProvider).
const ControlPlaneGroup = "fluxcd.controlplane.io"

// flux-operator's annotations on generated objects.
const (
	reconcileAnnotation = ControlPlaneGroup + "/reconcile"
	copyFromAnnotation  = ControlPlaneGroup + "/copyFrom"
)

func isResourceSet(o *manifest.Object) bool {
	return o.Group() == ControlPlaneGroup && o.Kind == "ResourceSet"
}

// resourceSetSpec is the part of a ResourceSet's spec the build reads
// (fluxcd.controlplane.io/v1).
type resourceSetSpec struct {
	CommonMetadata *struct {
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"commonMetadata"`
	InputStrategy *struct {
		Name                  string `json:"name"`
		IncludeEmptyProviders bool   `json:"includeEmptyProviders"`
	} `json:"inputStrategy"`
	Inputs     []map[string]any `json:"inputs"`
	InputsFrom []struct {
		Kind     string                `json:"kind"`
		Name     string                `json:"name"`
		Selector *metav1.LabelSelector `json:"selector"`
	} `json:"inputsFrom"`
	resourceTemplates
	Steps []struct {
		Name string `json:"name"`
		resourceTemplates
	} `json:"steps"`
}

// resourceTemplates are the templates of a ResourceSet or of one step.
type resourceTemplates struct {
	Resources         []map[string]any `json:"resources"`
	ResourcesTemplate string           `json:"resourcesTemplate"`
}

func decodeResourceSet(o *manifest.Object) (*resourceSetSpec, error) {
	data, err := json.Marshal(field.Map(o.Body, "spec"))
	if err != nil {
		return nil, err
	}
	var spec resourceSetSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		return nil, fmt.Errorf("does not decode as a flux-operator ResourceSet: %w", err)
	}
	if len(spec.Steps) > 0 && (len(spec.Resources) > 0 || spec.ResourcesTemplate != "") {
		return nil, fmt.Errorf("spec.steps is mutually exclusive with spec.resources and spec.resourcesTemplate")
	}
	for _, s := range spec.Steps {
		if len(s.Resources) == 0 && s.ResourcesTemplate == "" {
			return nil, fmt.Errorf("step %q: at least one of resources or resourcesTemplate must be set", s.Name)
		}
	}
	return &spec, nil
}

// buildResourceSet renders a ResourceSet as flux-operator would: its input
// sets (inline inputs, and those of the ResourceSetInputProviders it
// selects that the repository can tell: Static ones), each template
// rendered per input set, objects with reconcile: disabled left out, the
// first of a duplicate kept, then the owner labels, commonMetadata and
// copyFrom data. Providers only the cluster can answer (GitHub pull
// requests, OCI tags, ...) leave the ResourceSet partly built (an
// unrendered scope and a notice), or not built when they are all it has.
func (b *builder) buildResourceSet(n *Node) ([]*manifest.Object, error) {
	spec, err := decodeResourceSet(n.Object)
	if err != nil {
		return nil, err
	}
	rs := n.Object
	providers := []inputProvider{{kind: "ResourceSet", name: rs.Name, namespace: rs.Namespace, inputs: spec.Inputs}}
	var unknown []string
	for i, ref := range spec.InputsFrom {
		found, missing, err := b.inputProviders(rs.Namespace, ref.Name, ref.Selector)
		if err != nil {
			return nil, fmt.Errorf("spec.inputsFrom[%d]: %w", i, err)
		}
		providers = append(providers, found...)
		unknown = append(unknown, missing...)
	}
	slices.SortFunc(providers[1:], func(x, y inputProvider) int { return cmp.Compare(x.name, y.name) })
	strategy, includeEmpty := "", false
	if s := spec.InputStrategy; s != nil {
		strategy, includeEmpty = s.Name, s.Name == "Permute" && s.IncludeEmptyProviders
	}
	if len(unknown) > 0 && (strategy == "Permute" || len(spec.Inputs) == 0 && len(providers) == 1) {
		return nil, skip("inputs only the cluster has", "its inputs come from %s, which only the cluster can answer; what it generates cannot be checked here", strings.Join(unknown, ", "))
	}
	inputs, err := combineInputs(strategy, includeEmpty, providers)
	if err != nil {
		return nil, err
	}
	if len(unknown) > 0 {
		n.Partial = append(n.Partial, fmt.Sprintf("the input sets of %s, which only the cluster can answer, are not rendered; what they generate cannot be checked", strings.Join(unknown, ", ")))
		n.Unrendered = append(n.Unrendered, resourceSetScopes(rs, fmt.Sprintf("generates objects from the inputs of %s, which only the cluster knows", strings.Join(unknown, ", ")))...)
	}
	var objs []*manifest.Object
	seen := map[manifest.Key]string{}
	steps := []struct {
		name string
		t    resourceTemplates
	}{{"", spec.resourceTemplates}}
	if len(spec.Steps) > 0 {
		steps = steps[:0]
		for _, s := range spec.Steps {
			steps = append(steps, struct {
				name string
				t    resourceTemplates
			}{s.Name, s.resourceTemplates})
		}
	}
	for _, st := range steps {
		out, err := renderTemplates(rs, st.t, inputs)
		if err != nil {
			if st.name != "" {
				return nil, fmt.Errorf("step %q: %w", st.name, err)
			}
			return nil, err
		}
		for _, o := range out {
			k := o.Key()
			if prev, dup := seen[k]; dup {
				if prev != st.name {
					return nil, fmt.Errorf("duplicate resource %s in step %q, already defined in step %q", o, st.name, prev)
				}
				continue
			}
			seen[k] = st.name
			objs = append(objs, o)
		}
	}
	owner := map[string]string{"resourceset." + ControlPlaneGroup + "/name": rs.Name, "resourceset." + ControlPlaneGroup + "/namespace": rs.Namespace}
	var cmLabels, cmAnnotations map[string]string
	if cm := spec.CommonMetadata; cm != nil {
		cmLabels, cmAnnotations = cm.Labels, cm.Annotations
	}
	set := manifest.NewSet()
	for _, o := range objs {
		if err := set.Add(o); err != nil {
			return nil, err
		}
	}
	setCommonMetadata(set, owner, nil)
	setCommonMetadata(set, cmLabels, cmAnnotations)
	for _, o := range objs {
		b.copyFrom(o)
	}
	return objs, nil
}

// renderTemplates renders the templates with each input set (once without
// inputs when there are none), as flux-operator's BuildResourceSet: the
// resources list first, then the multi-document template; objects with
// reconcile: disabled are left out, later duplicates dropped.
func renderTemplates(rs *manifest.Object, t resourceTemplates, inputs []map[string]any) ([]*manifest.Object, error) {
	sets := inputs
	if len(sets) == 0 {
		sets = []map[string]any{nil}
	}
	var out []*manifest.Object
	seen := map[manifest.Key]bool{}
	// Without inputs a resources entry is taken as it renders; with inputs,
	// and always for the multi-document template, an object annotated
	// reconcile: disabled is left out and a repeated one dropped.
	add := func(objs []*manifest.Object, filter bool) {
		for _, o := range objs {
			if filter && strings.EqualFold(o.Annotations()[reconcileAnnotation], "disabled") {
				continue
			}
			if seen[o.Key()] && filter {
				continue
			}
			seen[o.Key()] = true
			out = append(out, o)
		}
	}
	for i, tmpl := range t.Resources {
		data, err := json.Marshal(tmpl)
		if err != nil {
			return nil, err
		}
		text, err := yaml.JSONToYAML(data)
		if err != nil {
			return nil, fmt.Errorf("failed to convert template to YAML: %w", err)
		}
		for _, in := range sets {
			objs, err := renderDocuments(rs, string(text), in)
			if err != nil {
				return nil, fmt.Errorf("failed to build resources[%d]: %w", i, err)
			}
			if len(objs) != 1 {
				return nil, fmt.Errorf("resources[%d] renders %d objects, want one", i, len(objs))
			}
			add(objs, len(inputs) > 0)
		}
	}
	if t.ResourcesTemplate != "" {
		for _, in := range sets {
			objs, err := renderDocuments(rs, t.ResourcesTemplate, in)
			if err != nil {
				return nil, fmt.Errorf("failed to build resources: %w", err)
			}
			add(objs, true)
		}
	}
	return out, nil
}

// renderDocuments renders one template with one input set and decodes
// the objects, as the API server's decoder reads them (YAML 1.1). Their
// source is the ResourceSet's file and line.
func renderDocuments(rs *manifest.Object, text string, input map[string]any) ([]*manifest.Object, error) {
	out, err := execTemplate(text, input)
	if err != nil {
		return nil, err
	}
	objs, err := manifest.DecodeWith(rs.Source.File, out, manifest.DecodeOptions{YAML11Booleans: true})
	if err != nil {
		return nil, fmt.Errorf("failed to read objects: %w", err)
	}
	for _, o := range objs {
		o.Source = rs.Source
		o.Fields = nil
	}
	return objs, nil
}

// inputProviders finds the ResourceSetInputProviders a spec.inputsFrom
// entry selects in ns (by name or label selector), among what the tree
// applies: a Static one exports its defaultValues (and an id, which the
// cluster derives from the object's UID: routeguard takes one from its
// namespace and name). Any other type, and a named one the tree does not
// apply, only the cluster can answer: missing names them.
func (b *builder) inputProviders(ns, name string, sel *metav1.LabelSelector) (found []inputProvider, missing []string, err error) {
	var candidates []*manifest.Object
	switch {
	case name != "":
		if o, ok := b.state.set.Lookup(ControlPlaneGroup, "ResourceSetInputProvider", ns, name); ok {
			candidates = append(candidates, o)
		} else {
			missing = append(missing, fmt.Sprintf("ResourceSetInputProvider %s/%s (not among the objects the tree applies)", ns, name))
		}
	case sel != nil:
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil {
			return nil, nil, fmt.Errorf("failed to parse selector: %w", err)
		}
		for _, o := range b.state.set.ByKind(ControlPlaneGroup, "ResourceSetInputProvider") {
			if o.Namespace == ns && s.Matches(labels.Set(o.Labels())) {
				candidates = append(candidates, o)
			}
		}
		if len(candidates) == 0 {
			missing = append(missing, fmt.Sprintf("the ResourceSetInputProviders selected by %s in %s (none among the objects the tree applies)", s, ns))
		}
	default:
		return nil, nil, fmt.Errorf("input provider reference must have either name or selector set")
	}
	for _, o := range candidates {
		typ := field.String(o.Body, "spec", "type")
		if typ != "Static" {
			missing = append(missing, fmt.Sprintf("ResourceSetInputProvider %s/%s (type %s)", o.Namespace, o.Name, typ))
			continue
		}
		in := map[string]any{}
		maps.Copy(in, field.Map(o.Body, "spec", "defaultValues"))
		in["id"] = inputID(o.Namespace + "/" + o.Name)
		found = append(found, inputProvider{kind: "ResourceSetInputProvider", name: o.Name, namespace: o.Namespace, inputs: []map[string]any{in}})
	}
	return found, missing, nil
}

// copyFrom fills a ConfigMap or Secret annotated with copyFrom from the
// object it names, as flux-operator does at apply time: from what the tree
// applies, else it is made in the cluster (a Secret: its values are not
// known here).
func (b *builder) copyFrom(o *manifest.Object) {
	from := o.Annotations()[copyFromAnnotation]
	if from == "" || o.Group() != "" || (o.Kind != "ConfigMap" && o.Kind != "Secret") {
		return
	}
	ns, name, ok := strings.Cut(from, "/")
	if !ok {
		return
	}
	src, ok := b.state.lookup(o.Kind, ns, name)
	if !ok {
		return // made in the cluster (secretsMade, copiedInCluster)
	}
	for _, k := range []string{"data", "stringData", "binaryData"} {
		if v, ok := src.Body[k]; ok {
			o.Body[k] = v
		}
	}
}

// resourceSetScopes is where a ResourceSet's objects may land when its
// templates could not all be rendered: the namespaces its templates name
// as written, or any namespace when one is templated (a tenant's).
func resourceSetScopes(rs *manifest.Object, why string) []analysis.UnrenderedScope {
	reason := fmt.Sprintf("%s %s", rs, why)
	makers := []string{rs.Name}
	spec, err := decodeResourceSet(rs)
	if err != nil {
		return []analysis.UnrenderedScope{{Namespace: "*", Reason: reason, Makers: makers}}
	}
	nss := map[string]bool{}
	anyNS := false
	note := func(md map[string]any) {
		ns := field.String(md, "namespace")
		switch {
		case strings.Contains(ns, "<<"):
			anyNS = true
		case ns == "":
			nss[rs.Namespace] = true
			nss[""] = true
		default:
			nss[ns] = true
		}
	}
	all := []resourceTemplates{spec.resourceTemplates}
	for _, s := range spec.Steps {
		all = append(all, s.resourceTemplates)
	}
	for _, t := range all {
		for _, r := range t.Resources {
			note(field.Map(r, "metadata"))
		}
		if t.ResourcesTemplate != "" {
			anyNS = true // a template's structure is only known once rendered
		}
	}
	if anyNS {
		return []analysis.UnrenderedScope{{Namespace: "*", Reason: reason, Makers: makers}}
	}
	var out []analysis.UnrenderedScope
	for _, ns := range slices.Sorted(maps.Keys(nss)) {
		out = append(out, analysis.UnrenderedScope{Namespace: ns, Reason: reason, Makers: makers})
	}
	return out
}

// copiedInCluster says what a ConfigMap or Secret that flux-operator fills
// from another object (copyFrom) copies, when the tree does not apply
// that object: its data is only the cluster's ("" when o copies nothing
// or its source is known).
func copiedInCluster(o *manifest.Object) string {
	from := o.Annotations()[copyFromAnnotation]
	if from == "" || len(field.Map(o.Body, "data")) > 0 || len(field.Map(o.Body, "stringData")) > 0 {
		return ""
	}
	return "copied in the cluster by flux-operator from " + from + " (copyFrom), which the tree does not apply"
}
