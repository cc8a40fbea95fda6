package flux

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	securefs "github.com/fluxcd/pkg/kustomize/filesys"
	"github.com/fluxcd/pkg/sourceignore"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/substitute"
)

// Options control a build.
type Options struct {
	// Strict makes unset postBuild variables errors (Flux 2.9's default).
	Strict bool
	// AllowNetwork permits remote Kustomize bases and remote Helm charts.
	AllowNetwork bool
	// KubeVersion is the Kubernetes version for Helm capabilities.
	KubeVersion string
}

// BuildError is a build failure of one Flux object.
type BuildError struct {
	Object *manifest.Object
	Err    error
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("%s: %s %s: %v", e.Object.Source, e.Object.Kind, nsName(e.Object), e.Err)
}

func (e *BuildError) Unwrap() error { return e.Err }

func nsName(o *manifest.Object) string {
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}

// describe names a Flux object and its place, for messages about the objects
// it builds.
func describe(o *manifest.Object) string {
	return fmt.Sprintf("%s %s (%s)", o.Kind, nsName(o), o.Source)
}

// BuildKustomization produces what kustomize-controller would apply for ks:
// fluxcd/pkg/kustomize's generator over spec.path (targetNamespace,
// namePrefix, nameSuffix, patches, images, components), its secure build,
// postBuild substitution, then spec.commonMetadata. Sources are file:line of
// the objects in the repository.
func (inv *Inventory) BuildKustomization(ctx context.Context, ks *manifest.Object, opts Options) (*manifest.Set, error) {
	set, err := inv.buildKustomization(ctx, ks, opts)
	if err != nil {
		var se *substitute.Error
		if errors.As(err, &se) {
			// Already names the object, its file and the Kustomization;
			// point at the variable's line when the file shows it.
			se.Line = variableLine(inv.RepoRoot, se)
			return nil, err
		}
		return nil, &BuildError{Object: ks, Err: err}
	}
	return set, nil
}

func (inv *Inventory) buildKustomization(ctx context.Context, ks *manifest.Object, opts Options) (*manifest.Set, error) {
	if err := inv.checkSourceRef(ks); err != nil {
		return nil, err
	}
	spec, _ := ks.Body["spec"].(map[string]any)
	path, _ := spec["path"].(string)
	if path == "" {
		path = "./"
	}
	if filepath.IsAbs(path) {
		return nil, fmt.Errorf("spec.path %q must be relative to the repository root", path)
	}
	dirPath := filepath.Join(inv.RepoRoot, filepath.FromSlash(path))
	if rel, err := filepath.Rel(inv.RepoRoot, dirPath); err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("spec.path %q leads outside the repository", path)
	}
	if fi, err := os.Stat(dirPath); err != nil || !fi.IsDir() {
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("spec.path %q: no such directory in the repository (paths are relative to the GitRepository root, %s); fix the path", path, inv.RepoRoot)
		}
		return nil, fmt.Errorf("spec.path %q: %w", path, err)
	}
	u := unstructured.Unstructured{Object: ks.Body}
	// The controller builds source-controller's artifact, which leaves out
	// what the GitRepository ignores: its spec.ignore, else the default
	// exclusions (VCS, CI, images, archives), plus .sourceignore files.
	gen := fluxkustomize.NewGeneratorWithIgnore(inv.RepoRoot, inv.sourceIgnore(ks), u)
	data, kfile, _, err := gen.GenerateManifest(dirPath)
	if err != nil {
		return nil, fmt.Errorf("generating kustomization for %s: %w", path, err)
	}
	data, addedOrigins, err := withOrigins(data)
	if err != nil {
		return nil, err
	}
	base, err := securefs.MakeFsOnDiskSecure(inv.RepoRoot)
	if err != nil {
		return nil, err
	}
	if opts.AllowNetwork {
		if base, err = securefs.MakeFsOnDiskSecureBuild(inv.RepoRoot); err != nil {
			return nil, err
		}
	}
	kabs, _ := filepath.Abs(kfile)
	resMap, err := fluxkustomize.Build(overlayFS{FileSystem: base, path: kabs, data: data}, dirPath)
	if err != nil {
		return nil, fmt.Errorf("kustomize build of %s failed: %w", path, err)
	}
	origins, err := render.NewOrigins(inv.RepoRoot)
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
		body, err := res.Map()
		if err != nil {
			return nil, err
		}
		src := manifest.Source{File: origins.Rel(realDir), Doc: i}
		var fields *manifest.FieldIndex
		if origin := res.GetAnnotations()[render.OriginAnnotation]; origin != "" {
			src, fields = origins.Origin(realDir, origin, res.GetKind(), res.GetName(), src)
			if addedOrigins {
				manifest.DeleteAnnotation(body, render.OriginAnnotation)
			}
		}
		o, err := manifest.FromBody(body, src)
		if err != nil {
			return nil, err
		}
		o.Fields = fields
		if err := set.Add(o); err != nil {
			return nil, err
		}
	}
	if _, ok := spec["postBuild"]; ok {
		src, err := inv.resolveSubstituteFrom(ks)
		if err != nil {
			return nil, err
		}
		set, err = substitute.Apply(ctx, set, ks.Body, src, substitute.Options{Strict: opts.Strict, Origin: describe(ks)})
		if err != nil {
			return nil, err
		}
	}
	if cm, ok := spec["commonMetadata"].(map[string]any); ok {
		setCommonMetadata(set, cm)
	}
	return set, nil
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
func setCommonMetadata(set *manifest.Set, cm map[string]any) {
	labels, _ := cm["labels"].(map[string]any)
	annotations, _ := cm["annotations"].(map[string]any)
	for _, o := range set.Objects() {
		md, _ := o.Body["metadata"].(map[string]any)
		if md == nil {
			md = map[string]any{}
			o.Body["metadata"] = md
		}
		for field, values := range map[string]map[string]any{"labels": labels, "annotations": annotations} {
			if len(values) == 0 {
				continue
			}
			m, _ := md[field].(map[string]any)
			if m == nil {
				m = map[string]any{}
				md[field] = m
			}
			for k, v := range values {
				m[k] = v
			}
		}
	}
}

// sourceIgnore returns the ignore patterns of the Kustomization's
// GitRepository: its spec.ignore when set, else source-controller's default
// exclusions. VCS files are always excluded.
func (inv *Inventory) sourceIgnore(ks *manifest.Object) string {
	defaults := strings.Join([]string{sourceignore.ExcludeExt, sourceignore.ExcludeCI, sourceignore.ExcludeExtra}, ",")
	spec, _ := ks.Body["spec"].(map[string]any)
	ref, _ := spec["sourceRef"].(map[string]any)
	name, _ := ref["name"].(string)
	ns, _ := ref["namespace"].(string)
	if gr, ok := inv.Sources[manifest.Key{Group: SourceGroup, Kind: "GitRepository", Namespace: cmp.Or(ns, ks.Namespace), Name: name}]; ok {
		grSpec, _ := gr.Body["spec"].(map[string]any)
		if ignore, ok := grSpec["ignore"].(string); ok {
			return strings.ReplaceAll(sourceignore.ExcludeVCS, ",", "\n") + "\n" + ignore
		}
	}
	return strings.ReplaceAll(sourceignore.ExcludeVCS+","+defaults, ",", "\n")
}

// checkSourceRef accepts Kustomizations whose source is a GitRepository
// (this repository); other source kinds cannot be read offline.
func (inv *Inventory) checkSourceRef(o *manifest.Object) error {
	spec, _ := o.Body["spec"].(map[string]any)
	ref, _ := spec["sourceRef"].(map[string]any)
	kind, _ := ref["kind"].(string)
	if kind != "GitRepository" {
		return &SkipError{Reason: fmt.Sprintf("its source is %s, which routeguard cannot read offline; only GitRepository sources (this repository) are built", aKind(kind))}
	}
	return nil
}

// aKind renders a source kind with its article ("an ExternalArtifact"),
// or "(none)".
func aKind(s string) string {
	if s == "" {
		return "(none)"
	}
	return manifest.Article(s)
}

// SkipError says a Flux object cannot be built offline; callers warn and go on.
type SkipError struct{ Reason string }

func (e *SkipError) Error() string { return "skipped: " + e.Reason }

// resolveSubstituteFrom checks every substituteFrom reference against the
// inventory and returns the ConfigMaps and Secrets they name.
func (inv *Inventory) resolveSubstituteFrom(ks *manifest.Object) (*substitute.Sources, error) {
	src := &substitute.Sources{
		ConfigMaps: map[substitute.NamespacedName]map[string]string{},
		Secrets:    map[substitute.NamespacedName]map[string][]byte{},
	}
	refs, _, _ := unstructured.NestedSlice(ks.Body, "spec", "postBuild", "substituteFrom")
	for i, r := range refs {
		rm, _ := r.(map[string]any)
		kind, _ := rm["kind"].(string)
		name, _ := rm["name"].(string)
		optional, _ := rm["optional"].(bool)
		n := substitute.NamespacedName{Namespace: ks.Namespace, Name: name}
		switch kind {
		case "ConfigMap":
			o, ok := inv.ConfigMaps[n]
			if !ok {
				if optional {
					continue
				}
				return nil, missingRef("ConfigMap", n, i, inv.Dir)
			}
			data := map[string]string{}
			m, _ := o.Body["data"].(map[string]any)
			for k, v := range m {
				data[k] = scalarString(v)
			}
			src.ConfigMaps[n] = data
		case "Secret":
			o, ok := inv.Secrets[n]
			if !ok {
				if optional {
					continue
				}
				return nil, missingRef("Secret", n, i, inv.Dir)
			}
			data, err := secretData(o)
			if err != nil {
				if optional {
					continue
				}
				return nil, err
			}
			src.Secrets[n] = data
		default:
			return nil, fmt.Errorf("spec.postBuild.substituteFrom[%d]: kind %q must be ConfigMap or Secret", i, kind)
		}
	}
	return src, nil
}

func missingRef(kind string, n substitute.NamespacedName, i int, dir string) error {
	return fmt.Errorf("spec.postBuild.substituteFrom[%d]: %s %s is not in the repository (looked under %s); add it there, or mark the reference optional: true",
		i, kind, n, dir)
}

// variableLine finds the line of a strict-mode error's variable in the
// object's file, from the object's first line on (0 when not found).
func variableLine(repoRoot string, e *substitute.Error) int {
	src := e.Object.Source
	data, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(src.File)))
	if err != nil {
		return 0
	}
	return substitute.VariableLine(data, src.Line, e.Variable())
}
