package flux

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	securejoin "github.com/cyphar/filepath-securejoin"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/routing"
)

// What a node that was not built holds of routing, as far as the
// repository shows it: the routing objects in the files of a
// Kustomization's spec.path, the templates of a chart in this checkout,
// routing values of a HelmRelease (app-template's route and ingress), the
// templates of a ResourceSet. It tells a tree that holds no routing at all
// (nothing to check, fine) from one whose routing was not built (a silent
// pass), and says per unbuilt node what it left unchecked.

// maxRoutingScan bounds the files read for one node.
const maxRoutingScan = 2000

// routingFiles lists what n holds of routing (repository paths, or
// "spec.values.<key>" of a HelmRelease).
func (b *builder) routingFiles(n *Node) []string {
	o := n.Object
	switch {
	case n.IsKustomization():
		ref := sourceRef(field.Map(o.Body, "spec", "sourceRef"), o.Namespace)
		gr, declared := b.state.source(SourceGroup, ref.Kind, ref.Namespace, ref.Name)
		if !b.isSelf(ref, gr) && b.mapped[ref] != b.root && (declared || ref.Kind != "GitRepository") {
			return nil // another source's files are not here
		}
		// (a GitRepository the tree does not declare may be this one: its
		// path, when here, is read)
		return b.routingIn(field.String(o.Body, "spec", "path"), false)
	case n.IsResourceSet():
		if routingTemplates(o) {
			return []string{o.Source.File + " (its templates)"}
		}
		return nil
	}
	var out []string
	for _, k := range routing.ValuesRouting(field.Map(o.Body, "spec", "values")) {
		out = append(out, "spec.values."+k)
	}
	spec := field.Map(o.Body, "spec", "chart", "spec")
	if ref := sourceRef(field.Map(spec, "sourceRef"), o.Namespace); ref.Kind == "GitRepository" && b.isSelf(ref, nil) {
		out = append(out, b.routingIn(field.String(spec, "chart"), true)...)
	}
	return out
}

// routingTemplates reports whether a ResourceSet's templates name a
// routing kind.
func routingTemplates(rs *manifest.Object) bool {
	spec, err := decodeResourceSet(rs)
	if err != nil {
		return false
	}
	all := []resourceTemplates{spec.resourceTemplates}
	for _, s := range spec.Steps {
		all = append(all, s.resourceTemplates)
	}
	for _, t := range all {
		if routing.Mentioned([]byte(t.ResourcesTemplate)) {
			return true
		}
		for _, r := range t.Resources {
			if k, _ := r["kind"].(string); routing.Mentioned([]byte("kind: " + k)) {
				return true
			}
		}
	}
	return false
}

// unreadRouting lists the files of this checkout that hold routing objects
// which no built node read, when the tree holds routing nowhere else it
// knows (no unbuilt node's RoutingFiles) and some node was not built: a
// source not built here (an OCI artifact, another repository) may be what
// carries them. Nil otherwise, or when everything was built.
func (b *builder) unreadRouting(nodes []*Node) []string {
	skipped := false
	read := map[string]bool{}
	for _, n := range nodes {
		switch {
		case len(n.RoutingFiles) > 0:
			return nil
		case n.Status == Skipped:
			skipped = true
		case n.Status == Built:
			for _, o := range n.Objects {
				read[o.Source.File] = true
			}
		}
	}
	if !skipped {
		return nil
	}
	var out []string
	for _, f := range b.routingIn(".", false) {
		if !read[f] {
			out = append(out, f)
		}
	}
	return out
}

// routingIn lists the files under p (a path of this checkout) that hold
// routing objects; templates reads them as text (Helm templates are not
// YAML).
func (b *builder) routingIn(p string, templates bool) []string {
	dir, err := securejoin.SecureJoin(b.root, filepath.FromSlash(p))
	if err != nil {
		return nil
	}
	var out []string
	n := 0
	_ = filepath.WalkDir(dir, func(f string, d fs.DirEntry, err error) error {
		if err != nil || n >= maxRoutingScan {
			return filepath.SkipDir
		}
		if d.IsDir() {
			if f != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(f)
		if (ext != ".yaml" && ext != ".yml" && ext != ".tpl") || !d.Type().IsRegular() {
			return nil
		}
		n++
		rel := mustRel(b.root, f)
		if templates {
			if data, err := b.readSmall(f); err == nil && routing.Mentioned(data) {
				out = append(out, filepath.ToSlash(rel))
			}
			return nil
		}
		objs, err := decodeFile(b.root, f, b.maxFile())
		if err != nil {
			return nil
		}
		if slices.ContainsFunc(objs, func(o *manifest.Object) bool { return analysis.IsRouting(o.GroupKind()) }) {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

func (b *builder) readSmall(p string) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if fi.Size() > b.maxFile() {
		return nil, fmt.Errorf("%s: too large", p)
	}
	return os.ReadFile(p)
}
