package flux

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	securefs "github.com/fluxcd/pkg/kustomize/filesys"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/substitute"
)

// decodeKustomization converts a Kustomization to Flux's typed API object,
// as the API server and kustomize-controller hold it: null and empty forms
// Flux accepts (postBuild: {substitute: null}) become absent fields.
func decodeKustomization(o *manifest.Object) (*kustomizev1.Kustomization, map[string]any, error) {
	if err := metadataStrings(o); err != nil {
		return nil, nil, err
	}
	var ks kustomizev1.Kustomization
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Body, &ks); err != nil {
		return nil, nil, fmt.Errorf("does not decode as a Flux Kustomization: %w", err)
	}
	body, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&ks)
	if err != nil {
		return nil, nil, err
	}
	return &ks, body, nil
}

// buildKustomization produces what kustomize-controller would apply for a
// Kustomization node: fluxcd/pkg/kustomize's generator over spec.path
// (targetNamespace, namePrefix, nameSuffix, patches, images, components),
// its build confined to the source, postBuild substitution, then
// spec.commonMetadata. Sources are file:line of the objects' files.
func (b *nodeRender) buildKustomization(ctx context.Context, n *Node) ([]*manifest.Object, error) {
	ks, body, err := decodeKustomization(n.Object)
	if err != nil {
		return nil, err
	}
	ref := SourceKey{Kind: ks.Spec.SourceRef.Kind, Namespace: cmp.Or(ks.Spec.SourceRef.Namespace, ks.Namespace), Name: ks.Spec.SourceRef.Name}
	o, err := b.originOf(ref)
	if err != nil {
		return nil, err
	}
	dirPath, err := o.localDir("spec.path", ks.Spec.Path)
	if err != nil {
		return nil, err
	}
	if o.self {
		n.Dir = o.realDir(dirPath)
	}
	trace, traced := b.originTrace(n, o)
	defer traced()
	if trace != nil {
		// The generator and the checks read spec.path with the os
		// package: everything below it counts.
		trace.Record(confine.ObservedStat, o.dir, dirPath)
	}
	if err := b.checkKustomizationFile(dirPath); err != nil {
		return nil, err
	}
	gen := fluxkustomize.NewGenerator(o.dir, unstructured.Unstructured{Object: body})
	data, kfile, _, err := gen.GenerateManifest(dirPath)
	if err != nil {
		return nil, fmt.Errorf("generating the kustomization for spec.path %s: %w", ks.Spec.Path, err)
	}
	data, addedOrigins, err := withOrigins(data)
	if err != nil {
		return nil, err
	}
	var base filesys.FileSystem
	if b.opts.AllowNetwork {
		base, err = securefs.MakeFsOnDiskSecureBuild(o.dir)
	} else {
		base, err = securefs.MakeFsOnDiskSecure(o.dir)
	}
	if err != nil {
		return nil, err
	}
	kabs, _ := filepath.Abs(kfile)
	display := func(p string) string { return o.display(mustRel(o.dir, p)) }
	var fsys filesys.FileSystem = overlayFS{FileSystem: limitFS{FileSystem: base, b: b.workspace, display: display}, path: kabs, data: data}
	var offline *offlineFS
	if !b.opts.AllowNetwork {
		offline = &offlineFS{FileSystem: fsys, disk: limitFS{FileSystem: base, b: b.workspace, display: display}, display: display}
		fsys = offline
	}
	if trace != nil {
		fsys = traceFS{FileSystem: fsys, t: trace, dir: o.dir}
	}
	if b.opts.AllowNetwork {
		n.Trace.Opaque("remote Kustomize bases may be fetched (--allow-network)")
	}
	resMap, err := kustomizeBuild(fsys, dirPath)
	var remote []render.RemoteRef
	if offline != nil {
		remote = offline.remote()
	}
	if len(remote) > 0 {
		n.Trace.Opaque("it names remote Kustomize bases")
	}
	if err != nil && len(remote) > 0 {
		return nil, skip("remote base needs the network", "spec.path %s: %s, which routeguard does not fetch offline, and it does not build without it; pass --allow-network, or vendor it into the repository", ks.Spec.Path, remoteList(remote))
	}
	if err != nil {
		return nil, fmt.Errorf("kustomize build of spec.path %s failed: %w", ks.Spec.Path, err)
	}
	b.partlyBuilt(n, remote)
	origins, err := render.NewOrigins(o.dir)
	if err != nil {
		return nil, err
	}
	realDir, err := filepath.EvalSymlinks(dirPath)
	if err != nil {
		return nil, err
	}
	set := manifest.NewSet()
	for i, res := range resMap.Resources() {
		if res.GetName() == "" || res.GetKind() == "" || res.GetApiVersion() == "" {
			return nil, fmt.Errorf("failed to decode Kubernetes apiVersion, kind and name from: %v", res.String())
		}
		m, err := res.Map()
		if err != nil {
			return nil, err
		}
		src := manifest.Source{File: origins.Rel(realDir), Doc: i}
		var fields *manifest.FieldIndex
		if origin := res.GetAnnotations()[render.OriginAnnotation]; origin != "" {
			src, fields = origins.Origin(realDir, origin, res.GetKind(), res.GetName(), src)
			if addedOrigins {
				manifest.DeleteAnnotation(m, render.OriginAnnotation)
			}
		}
		src.File = o.display(src.File)
		obj, err := manifest.FromBody(m, src)
		if err != nil {
			return nil, err
		}
		obj.Fields = fields
		if err := set.Add(obj); err != nil {
			return nil, err
		}
	}
	if w := b.webhook(); w != nil {
		b.mutate(n, w, ks, body, set)
	}
	if ks.Spec.PostBuild != nil {
		if set, err = b.postBuild(ctx, n, ks, body, set); err != nil {
			return nil, err
		}
	}
	if cm := ks.Spec.CommonMetadata; cm != nil {
		setCommonMetadata(set, cm.Labels, cm.Annotations)
	}
	return set.Objects(), nil
}

// withOrigins turns on Kustomize's originAnnotations so objects keep their
// file:line; added reports whether the user had not asked for them (then
// routeguard strips them again, and the output is what Flux applies).
func withOrigins(data []byte) ([]byte, bool, error) {
	var k kustypes.Kustomization
	if err := yaml.Unmarshal(data, &k); err != nil {
		return nil, false, err
	}
	if slices.Contains(k.BuildMetadata, kustypes.OriginAnnotations) {
		return data, false, nil
	}
	k.BuildMetadata = append(k.BuildMetadata, kustypes.OriginAnnotations)
	out, err := yaml.Marshal(k)
	return out, true, err
}

// setCommonMetadata does what kustomize-controller does with
// spec.commonMetadata (fluxcd/pkg/ssa/utils SetCommonMetadata): its labels
// and annotations are set on every object, overriding equal keys.
func setCommonMetadata(set *manifest.Set, labels, annotations map[string]string) {
	for _, o := range set.Objects() {
		field.EnsureMap(o.Body, "metadata")
		for fieldName, values := range map[string]map[string]string{"labels": labels, "annotations": annotations} {
			if len(values) == 0 {
				continue
			}
			m := field.EnsureMap(o.Body, "metadata", fieldName)
			for k, v := range values {
				m[k] = v
			}
		}
	}
}

// substitutionError points a strict-mode error at the variable's line.
func (b *nodeRender) substitutionError(err error) error {
	var se *substitute.Error
	if errors.As(err, &se) {
		se.Line = variableLine(b.root, se)
		se.Strictness = b.strictness()
	}
	return err
}

// partlyBuilt records the remote parts a Kustomization was built without:
// a warning each, and, for those that add objects (a remote resource or
// base), an unrendered scope where the Kustomization puts its objects.
func (b *nodeRender) partlyBuilt(n *Node, remote []render.RemoteRef) {
	addsObjects := false
	for _, r := range remote {
		n.Partial = append(n.Partial, r.String()+", which routeguard does not fetch offline; built without it (pass --allow-network to fetch it, or vendor it into the repository)")
		addsObjects = addsObjects || r.AddsObjects()
	}
	if addsObjects {
		n.Unrendered = append(n.Unrendered, UnbuiltScopes(n.Object, "is built without its remote resources ("+remoteList(remote)+")")...)
	}
}

// remoteList names remote references for a message.
func remoteList(remote []render.RemoteRef) string {
	parts := make([]string, len(remote))
	for i, r := range remote {
		parts[i] = r.String()
	}
	return strings.Join(parts, "; ")
}

// metadataStrings refuses label and annotation values that are not
// strings (an unquoted true or 1.0 in YAML), naming the key: the API server
// rejects such an object; Go's converter only says "unrecognized type".
func metadataStrings(o *manifest.Object) error {
	for _, f := range []string{"labels", "annotations"} {
		m := field.Map(o.Body, "metadata", f)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			switch v := m[k].(type) {
			case string, nil:
			default:
				return fmt.Errorf("metadata.%s[%s] is %v, a %T: label and annotation values are strings, and the API server rejects the %s; quote the value (\"%v\")", f, k, v, v, o.Kind, v)
			}
		}
	}
	return nil
}
