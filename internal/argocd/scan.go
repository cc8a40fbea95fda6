package argocd

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/routeguard/routeguard/internal/argocd/project"
	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Kinds of Argo CD objects this package follows.
const (
	argoGroup          = "argoproj.io"
	kindApplication    = "Application"
	kindApplicationSet = "ApplicationSet"
)

func isArgo(o *manifest.Object, kind string) bool { return o.Group() == argoGroup && o.Kind == kind }

// scanned is what was found under the roots.
type scanned struct {
	objects  []*manifest.Object // Applications and ApplicationSets, in file order
	projects []*manifest.Object // AppProjects, in file order
	files    int                // manifest files read
	skipped  []string           // files that are not Kubernetes manifests
	// patches maps the files kustomization files use as patches
	// (repository-relative) to the kustomization naming them.
	patches map[string]string
	// projectPatches maps the directories of kustomizations that patch
	// AppProjects (repository-relative) to the kustomization.
	projectPatches map[string]string
	// kustomizations maps the directories of kustomization files to their
	// resources.
	kustomizations map[string][]string
}

// scan reads the Applications and ApplicationSets of the roots: a file is
// read whole (an error names it); a directory is walked, skipping hidden
// directories, Helm chart templates (their Applications only exist once
// the chart is rendered) and files that are not Kubernetes manifests.
func scan(repo *thisRepo, roots []string) (*scanned, error) {
	s := &scanned{patches: map[string]string{}, projectPatches: map[string]string{}, kustomizations: map[string][]string{}}
	for _, root := range roots {
		abs, err := filepath.Abs(root)
		if err != nil {
			return nil, err
		}
		real, err := repo.resolve(abs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w; give a path inside the repository (or set --repo-root)", root, err)
		}
		fi, err := repo.cr.Stat(real)
		if err != nil {
			return nil, fmt.Errorf("%s: no such file or directory", root)
		}
		if !fi.IsDir() {
			objs, err := s.read(repo, real)
			if err != nil {
				return nil, err
			}
			if len(objs) == 0 {
				return nil, fmt.Errorf("%s: holds no Argo CD Application or ApplicationSet", repo.rel(real))
			}
			continue
		}
		err = repo.cr.Walk(real, confine.WalkOptions{}, func(rel string, fi fs.FileInfo) error {
			p := filepath.Join(real, filepath.FromSlash(rel))
			if fi.IsDir() {
				if rel != "." && strings.HasPrefix(fi.Name(), ".") {
					return confine.SkipDir
				}
				if fi.Name() == "templates" && repo.isFile(filepath.Join(filepath.Dir(p), "Chart.yaml")) {
					return confine.SkipDir
				}
				return nil
			}
			if !fi.Mode().IsRegular() {
				return nil
			}
			switch strings.ToLower(filepath.Ext(p)) {
			case ".yaml", ".yml", ".json":
			default:
				return nil
			}
			if isKustomization(fi.Name()) {
				s.readPatches(repo, p)
			}
			if _, err := s.read(repo, p); err != nil {
				s.skipped = append(s.skipped, repo.rel(p))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

// read decodes one file and keeps its Argo CD objects.
func (s *scanned) read(repo *thisRepo, p string) ([]*manifest.Object, error) {
	data, err := repo.read(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", repo.rel(p), err)
	}
	s.files++
	objs, err := manifest.Decode(repo.rel(p), data)
	if err != nil {
		return nil, err
	}
	var out []*manifest.Object
	for _, o := range objs {
		if isArgo(o, kindApplication) || isArgo(o, kindApplicationSet) {
			out = append(out, o)
		}
		if project.IsProject(o) {
			s.projects = append(s.projects, o)
		}
	}
	s.objects = append(s.objects, out...)
	return out, nil
}

// isFile reports whether p is a regular file of the repository.
func (r *thisRepo) isFile(p string) bool {
	fi, err := r.cr.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
