package render

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/gobwas/glob"

	"github.com/routeguard/routeguard/internal/manifest"
)

// configFileNames are routeguard's own files; they are never manifests.
var configFileNames = map[string]bool{".routeguard.yaml": true, ".routeguard.yml": true}

// isManifestFile matches the extensions Argo CD reads in a directory app
// (jsonnet aside, which routeguard does not evaluate).
func isManifestFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return !configFileNames[name]
	}
	return false
}

// renderDirectory reads the manifests of a plain directory app the way Argo
// CD's directory source does: files in lexical order, subdirectories only
// with Recurse, include/exclude globs matched against the path relative to
// the app directory (gobwas/glob without separators, as Argo CD matches).
func renderDirectory(ctx context.Context, r *root, appDir string, opts Options) (*manifest.Set, error) {
	include, err := compileGlob("--include", opts.Directory.Include)
	if err != nil {
		return nil, err
	}
	exclude, err := compileGlob("--exclude", opts.Directory.Exclude)
	if err != nil {
		return nil, err
	}
	set := manifest.NewSet()
	err = filepath.WalkDir(appDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", r.rel(p), err)
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if d.IsDir() {
			if p != appDir && (!opts.Directory.Recurse || d.Name() == ".git") {
				return filepath.SkipDir
			}
			return nil
		}
		if !isManifestFile(d.Name()) {
			return nil
		}
		rel, _ := filepath.Rel(appDir, p)
		rel = filepath.ToSlash(rel)
		if exclude != nil && exclude.Match(rel) {
			return nil
		}
		if include != nil && !include.Match(rel) {
			return nil
		}
		data, err := r.readFile(p, opts.maxFileBytes())
		if err != nil {
			return err
		}
		objs, err := manifest.Decode(r.rel(p), data)
		if err != nil {
			return err
		}
		return set.AddAll(objs)
	})
	if err != nil {
		return nil, err
	}
	return set, nil
}

func compileGlob(flag, pattern string) (glob.Glob, error) {
	if pattern == "" {
		return nil, nil
	}
	g, err := glob.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("%s %q is not a valid glob: %w", flag, pattern, err)
	}
	return g, nil
}
