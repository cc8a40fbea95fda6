package flux

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// SyncSource is the GitRepository that `flux bootstrap` and the Flux
// Operator create for the cluster's sync, and routeguard takes for this
// checkout when the cluster directory holds no sync Kustomization.
var SyncSource = SourceKey{Kind: "GitRepository", Namespace: "flux-system", Name: "flux-system"}

// enter reads the entry path. A directory is built as the cluster's sync
// Kustomization builds it: the Kustomization among its files whose
// spec.path is the directory (flux bootstrap's flux-system), else one
// routeguard makes (flux-system/flux-system, sourceRef GitRepository
// flux-system). A file's Kustomizations and HelmReleases are the roots; the
// objects of its directory are taken as applied.
func (b *builder) enter() error {
	abs, err := filepath.Abs(b.opts.Path)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return fmt.Errorf("%s: no such file or directory; give a cluster directory or a file holding Flux Kustomizations/HelmReleases", b.opts.Path)
	}
	rel, err := filepath.Rel(b.root, abs)
	if err != nil || !(filepath.IsLocal(rel) || rel == ".") {
		return fmt.Errorf("%s: outside the repository root %s", b.opts.Path, b.root)
	}
	rel = filepath.ToSlash(rel)
	if slices.Contains(strings.Split(rel, "/"), ".git") {
		return fmt.Errorf("%s: leads into .git (%s), which routeguard never reads", b.opts.Path, rel)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		objs := b.scan(abs)
		var sync *manifest.Object
		for _, o := range objs {
			if o.Group() == KustomizeGroup && o.Kind == "Kustomization" &&
				filepath.Join(b.root, filepath.FromSlash(field.String(o.Body, "spec", "path"))) == abs {
				sync = o
				break
			}
		}
		if sync == nil {
			// The sync Kustomization (flux bootstrap's flux-system) of a
			// directory below PATH: Flux builds that one, not PATH.
			for _, o := range objs {
				p := filepath.Join(b.root, filepath.FromSlash(field.String(o.Body, "spec", "path")))
				if o.Group() == KustomizeGroup && o.Kind == "Kustomization" && o.Name == SyncSource.Name && o.Namespace == SyncSource.Namespace &&
					strings.HasPrefix(p, abs+string(filepath.Separator)) {
					sync = o
					b.selfNotes = append(b.selfNotes, fmt.Sprintf("%s holds the sync Kustomization %s (%s), whose spec.path is %s: the tree is built from it, as Flux builds it",
						rel, o, o.Source, field.String(o.Body, "spec", "path")))
					break
				}
			}
		}
		synthetic := sync == nil
		if synthetic {
			sync = syncKustomization(rel)
		}
		n := b.discover(sync, nil)
		n.synthetic = synthetic
		if ref := sourceRef(field.Map(sync.Body, "spec", "sourceRef"), sync.Namespace); ref.Kind == "GitRepository" {
			b.self[ref] = true
		}
		return nil
	}
	objs, err := decodeFile(b.root, abs, b.maxFile())
	if err != nil {
		return err
	}
	applied := &Node{Object: syncKustomization(filepath.ToSlash(filepath.Dir(rel))), synthetic: true, Status: Built}
	applied.Objects = b.scan(filepath.Dir(abs))
	for _, o := range applied.Objects {
		b.state.add(applied, o)
	}
	b.entryApplied = applied
	roots := 0
	for _, o := range objs {
		if !isFluxNode(o) {
			continue
		}
		b.discover(o, nil)
		roots++
		if ref := sourceRef(field.Map(o.Body, "spec", "sourceRef"), o.Namespace); ref.Kind == "GitRepository" {
			b.self[ref] = true
		}
		if ref := sourceRef(field.Map(o.Body, "spec", "chart", "spec", "sourceRef"), o.Namespace); ref.Kind == "GitRepository" {
			b.self[ref] = true
		}
	}
	if roots == 0 {
		return fmt.Errorf("%s: no Flux Kustomization or HelmRelease in this file", rel)
	}
	return nil
}

// syncKustomization is the Kustomization routeguard builds a cluster
// directory with when the directory holds none whose path is itself.
func syncKustomization(dir string) *manifest.Object {
	body := map[string]any{
		"apiVersion": KustomizeGroup + "/v1",
		"kind":       "Kustomization",
		"metadata":   map[string]any{"name": SyncSource.Name, "namespace": SyncSource.Namespace},
		"spec": map[string]any{
			"interval":  "10m",
			"path":      "./" + strings.TrimPrefix(dir, "./"),
			"prune":     true,
			"sourceRef": map[string]any{"kind": SyncSource.Kind, "name": SyncSource.Name},
		},
	}
	return &manifest.Object{APIVersion: KustomizeGroup + "/v1", Kind: "Kustomization", Namespace: SyncSource.Namespace, Name: SyncSource.Name,
		Body: body, Source: manifest.Source{File: dir}}
}

// scan reads the Kubernetes objects of the YAML files under dir
// (recursively; hidden files and directories and Kustomize's own files
// left out). Files that hold anything else (configMapGenerator inputs,
// application configuration) are left out and listed in skippedFiles.
func (b *builder) scan(dir string) []*manifest.Object {
	var out []*manifest.Object
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(name)
		if (ext != ".yaml" && ext != ".yml") || strings.HasPrefix(name, ".") || isKustomizeFile(name) || !d.Type().IsRegular() {
			return nil
		}
		objs, err := decodeFile(b.root, p, b.maxFile())
		if err != nil {
			b.skippedFiles = append(b.skippedFiles, err.Error())
			return nil
		}
		out = append(out, objs...)
		return nil
	})
	return out
}

func isKustomizeFile(name string) bool {
	switch name {
	case "kustomization.yaml", "kustomization.yml", "Kustomization":
		return true
	}
	return false
}

// decodeFile decodes the objects of one file; a file that holds something
// other than Kubernetes objects is an error naming it.
func decodeFile(root, p string, max int64) ([]*manifest.Object, error) {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		rel = p
	}
	rel = filepath.ToSlash(rel)
	data, err := readRegular(p, rel, max)
	if err != nil {
		return nil, err
	}
	objs, err := manifest.Decode(rel, data)
	if err != nil {
		return nil, fmt.Errorf("%s: not Kubernetes objects (%v)", rel, err)
	}
	return objs, nil
}
