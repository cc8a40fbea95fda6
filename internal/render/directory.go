package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gobwas/glob"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifest"
)

// configFileNames are routeguard's own files; they are never manifests.
var configFileNames = map[string]bool{".routeguard.yaml": true, ".routeguard.yml": true}

// isManifestFile matches the extensions Argo CD reads in a directory app:
// YAML and JSON manifests, and .jsonnet files, which are evaluated.
func isManifestFile(name string) bool {
	if isJsonnetFile(name) {
		return true
	}
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
func renderDirectory(ctx context.Context, r *root, appDir string, opts Options) (*manifest.Set, []string, error) {
	include, err := compileGlob("--include", opts.Directory.Include)
	if err != nil {
		return nil, nil, err
	}
	exclude, err := compileGlob("--exclude", opts.Directory.Exclude)
	if err != nil {
		return nil, nil, err
	}
	var files, warnings []string
	// Listed through the confined root: symlinked directories are not
	// descended (as Argo CD's directory source), symlinked files are read
	// only when they stay inside the repository, .git is never listed.
	err = r.Walk(appDir, confine.WalkOptions{}, func(rel string, fi fs.FileInfo) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if fi.IsDir() {
			if rel != "." && !opts.Directory.Recurse {
				return confine.SkipDir
			}
			return nil
		}
		if fi.Mode()&fs.ModeSymlink != 0 && opts.Directory.Recurse {
			if w := symlinkedDir(r, appDir, rel); w != "" {
				warnings = append(warnings, w)
				return nil
			}
		}
		if !isManifestFile(path.Base(rel)) {
			return nil
		}
		if exclude != nil && exclude.Match(rel) {
			return nil
		}
		if include != nil && !include.Match(rel) {
			return nil
		}
		files = append(files, filepath.Join(appDir, filepath.FromSlash(rel)))
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	decoded := decodeFiles(ctx, r, files, fileReader{appDir: appDir, dir: opts.Directory, max: opts.maxFileBytes()})
	set := manifest.NewSet()
	for _, d := range decoded {
		if d.err != nil {
			return nil, nil, d.err
		}
		if d.warning != "" {
			warnings = append(warnings, d.warning)
		}
		if err := addAll(set, d.objs, opts.RepeatedObject); err != nil {
			return nil, nil, err
		}
	}
	return set, warnings, nil
}

// symlinkedDir returns the warning for a symbolic link at rel (under
// appDir) that leads to a directory, or "" when it leads elsewhere. Argo
// CD's directory source does not descend into it (filepath.Walk), nor does
// routeguard: what it holds is neither rendered nor checked, and a user
// who sees manifests under it should be told.
func symlinkedDir(r *root, appDir, rel string) string {
	p := filepath.Join(appDir, filepath.FromSlash(rel))
	fi, err := r.Stat(p)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Sprintf("%s is a symbolic link to a directory; a directory app does not follow it (Argo CD's directory source neither), "+
			"so the manifests under it are not rendered or checked: move them into the app, or make the linked directory an app of its own", r.rel(p))
	case err != nil && errors.Is(err, confine.ErrOutside):
		if !isManifestFile(path.Base(rel)) {
			return fmt.Sprintf("%s is a symbolic link that leads outside the repository; it is not followed, and nothing under it is rendered or checked", r.rel(p))
		}
	}
	return ""
}

type decodedFile struct {
	objs []*manifest.Object
	err  error
	// warning: the file was passed over (not a manifest), and why.
	warning string
}

// decodeFiles reads and decodes files on every processor (YAML decoding
// is most of a directory app's cost: 10,000 objects take ~0.4 s on one
// core). The results keep the files' order, so the set, and the error a
// user sees (the first failing file's), are those of a serial read. Once
// a file fails, later files are skipped: they cannot change the outcome.
func decodeFiles(ctx context.Context, r *root, files []string, fr fileReader) []decodedFile {
	out := make([]decodedFile, len(files))
	var next, failed atomic.Int64
	failed.Store(int64(len(files)))
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(len(files)) || i > failed.Load() {
					return
				}
				out[i] = fr.decode(ctx, r, files[i])
				if out[i].err != nil {
					for f := failed.Load(); i < f && !failed.CompareAndSwap(f, i); f = failed.Load() {
					}
				}
			}
		}()
	}
	wg.Wait()
	return out[:min(len(files), int(failed.Load())+1)]
}

// fileReader reads one file of a directory app.
type fileReader struct {
	appDir string
	dir    DirectoryOptions
	max    int64
}

func (fr fileReader) decode(ctx context.Context, r *root, p string) decodedFile {
	if err := ctx.Err(); err != nil {
		return decodedFile{err: err}
	}
	data, err := r.readFile(p, fr.max)
	if err != nil {
		return decodedFile{err: err}
	}
	if fr.dir.SkipNonManifests && bytes.Contains(data, []byte(skipRenderingMarker)) {
		return decodedFile{}
	}
	if isJsonnetFile(filepath.Base(p)) {
		objs, err := evalJsonnet(ctx, r, fr.appDir, p, fr.dir.Jsonnet, fr.max)
		return decodedFile{objs: objs, err: err}
	}
	// Argo CD decodes a directory app's files with sigs.k8s.io/yaml:
	// YAML 1.1 booleans (hostNetwork: yes is true).
	objs, err := manifest.DecodeWith(r.rel(p), data, manifest.DecodeOptions{DuplicateKey: fr.dir.DuplicateKey, YAML11Booleans: true})
	if err != nil && fr.dir.SkipNonManifests && !looksLikeManifest(data) {
		return decodedFile{} // Argo CD ignores YAML that is not a manifest
	}
	if err != nil && !fr.dir.SkipNonManifests && slices.Contains(kustomizationFileNames, filepath.Base(p)) {
		// Kustomize's build file, met by a directory app read with
		// --recurse: configuration for kustomize build, not an object
		// (it has no metadata.name); the directory holding it is a
		// Kustomize app of its own.
		return decodedFile{warning: fmt.Sprintf("%s: Kustomize's build file, not a manifest; skipped: a directory app does not run Kustomize, so its patches, generators and "+
			"transformers are not applied here (analyze %s itself to render it with Kustomize)", r.rel(p), r.rel(filepath.Dir(p)))}
	}
	if err != nil && !fr.dir.SkipNonManifests && manifest.NotManifest(data) {
		// A repository's own YAML (.pre-commit-config.yaml, values,
		// lint configuration) beside the manifests: no reconciler
		// applies it, so it is not an error, but the user is told what
		// was not read. A file with apiVersion or kind anywhere stays
		// the error: a manifest with a missing field.
		return decodedFile{warning: fmt.Sprintf("%s: not a Kubernetes manifest (no document has apiVersion or kind); skipped, nothing in it is checked "+
			"(add apiVersion and kind if it is meant to be one, or leave it out with --exclude)", r.rel(p))}
	}
	return decodedFile{objs: objs, err: err}
}

// skipRenderingMarker makes Argo CD skip a file of a directory app.
const skipRenderingMarker = "+argocd:skip-file-rendering"

// looksLikeManifest is Argo CD's test for a file that failed to decode:
// when it names apiVersion, kind and metadata, the failure is an error;
// otherwise it is some other YAML file and is skipped.
func looksLikeManifest(data []byte) bool {
	for _, key := range []string{"apiVersion", "kind", "metadata"} {
		if !bytes.Contains(data, []byte(key+":")) && !bytes.Contains(data, []byte(`"`+key+`"`)) {
			return false
		}
	}
	return true
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
