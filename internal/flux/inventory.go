package flux

import (
	"encoding/base64"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/substitute"
)

// Flux API groups.
const (
	KustomizeGroup = "kustomize.toolkit.fluxcd.io"
	HelmGroup      = "helm.toolkit.fluxcd.io"
	SourceGroup    = "source.toolkit.fluxcd.io"
)

// Inventory is what a cluster directory declares: the Flux objects to build
// and the ConfigMaps and Secrets their references resolve to.
type Inventory struct {
	RepoRoot       string // absolute
	Dir            string // the scanned directory, relative to RepoRoot
	Kustomizations []*manifest.Object
	HelmReleases   []*manifest.Object
	Sources        map[manifest.Key]*manifest.Object // GitRepository, OCIRepository, HelmRepository, HelmChart
	ConfigMaps     map[substitute.NamespacedName]*manifest.Object
	Secrets        map[substitute.NamespacedName]*manifest.Object
}

// isKustomizeConfig reports files that hold Kustomize's own configuration,
// not objects to apply.
func isKustomizeConfig(name string) bool {
	switch name {
	case "kustomization.yaml", "kustomization.yml", "Kustomization":
		return true
	}
	return false
}

// Scan reads every YAML file under dir (recursively, skipping hidden
// directories and Kustomize configuration files). Files are read in lexical
// order, so the inventory is deterministic.
func Scan(repoRoot, dir string) (*Inventory, error) {
	absRoot, err := filepath.Abs(repoRoot)
	if err != nil {
		return nil, err
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(absRoot, absDir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("%s: outside the repository root %s", dir, absRoot)
	}
	inv := &Inventory{
		RepoRoot:   absRoot,
		Dir:        filepath.ToSlash(rel),
		Sources:    map[manifest.Key]*manifest.Object{},
		ConfigMaps: map[substitute.NamespacedName]*manifest.Object{},
		Secrets:    map[substitute.NamespacedName]*manifest.Object{},
	}
	fi, err := os.Stat(absDir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if !fi.IsDir() {
		return inv, inv.addFile(absDir)
	}
	err = filepath.WalkDir(absDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != absDir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(p)
		if (ext != ".yaml" && ext != ".yml") || isKustomizeConfig(d.Name()) || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		return inv.addFile(p)
	})
	return inv, err
}

func (inv *Inventory) rel(p string) string {
	r, err := filepath.Rel(inv.RepoRoot, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

func (inv *Inventory) addFile(p string) error {
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	objs, err := manifest.Decode(inv.rel(p), data)
	if err != nil {
		return err
	}
	for _, o := range objs {
		inv.add(o)
	}
	return nil
}

func (inv *Inventory) add(o *manifest.Object) {
	switch g := o.Group(); {
	case g == KustomizeGroup && o.Kind == "Kustomization":
		inv.Kustomizations = append(inv.Kustomizations, o)
	case g == HelmGroup && o.Kind == "HelmRelease":
		inv.HelmReleases = append(inv.HelmReleases, o)
	case g == SourceGroup:
		inv.Sources[o.Key()] = o
	case g == "" && o.Kind == "ConfigMap":
		inv.ConfigMaps[substitute.NamespacedName{Namespace: o.Namespace, Name: o.Name}] = o
	case g == "" && o.Kind == "Secret":
		inv.Secrets[substitute.NamespacedName{Namespace: o.Namespace, Name: o.Name}] = o
	}
}

// Select returns the Kustomizations and HelmReleases named name (any kind)
// in namespace ns ("" = any namespace).
func (inv *Inventory) Select(name, ns string) []*manifest.Object {
	var out []*manifest.Object
	for _, list := range [][]*manifest.Object{inv.Kustomizations, inv.HelmReleases} {
		for _, o := range list {
			if o.Name == name && (ns == "" || o.Namespace == ns) {
				out = append(out, o)
			}
		}
	}
	return out
}

// All returns every Kustomization, then every HelmRelease, in file order.
func (inv *Inventory) All() []*manifest.Object {
	out := append([]*manifest.Object{}, inv.Kustomizations...)
	return append(out, inv.HelmReleases...)
}

// secretData returns what the API server would hand Flux for a Secret:
// data decoded from base64 with stringData merged over it. A value that is
// not valid base64 is an error naming the Secret and key, never the value.
func secretData(o *manifest.Object) (map[string][]byte, error) {
	if _, sops := o.Body["sops"]; sops {
		return nil, fmt.Errorf("%s: %s is SOPS-encrypted; routeguard cannot decrypt it offline: mark the reference optional: true, or keep an unencrypted test copy outside the cluster directory", o.Source, o)
	}
	data := map[string][]byte{}
	m, _ := o.Body["data"].(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s := scalarString(m[k])
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: data.%s is not valid base64 (the value is not shown); use stringData for plain text", o.Source, o, k)
		}
		data[k] = b
	}
	sd, _ := o.Body["stringData"].(map[string]any)
	for k, v := range sd {
		data[k] = []byte(scalarString(v))
	}
	return data, nil
}

func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
