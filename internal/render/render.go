package render

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Detect reports how Argo CD would render dir: Kustomize when a
// kustomization file is present, Helm when Chart.yaml is, else a directory.
func Detect(dir string) Tool {
	for _, n := range kustomizationFileNames {
		if fileExists(filepath.Join(dir, n)) {
			return ToolKustomize
		}
	}
	if fileExists(filepath.Join(dir, "Chart.yaml")) {
		return ToolHelm
	}
	return ToolDirectory
}

// detect is Detect through the confined root (so that a trace sees it).
func (r *root) detect(dir string) Tool {
	isFile := func(n string) bool {
		fi, err := r.Stat(filepath.Join(dir, n))
		return err == nil && fi.Mode().IsRegular()
	}
	for _, n := range kustomizationFileNames {
		if isFile(n) {
			return ToolKustomize
		}
	}
	if isFile("Chart.yaml") {
		return ToolHelm
	}
	return ToolDirectory
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Render renders opts.Path. Errors name the file (and line where known) and
// say what to do; a failed render returns no partial set.
func Render(ctx context.Context, opts Options) (*Result, error) {
	if opts.Path == "" {
		opts.Path = "."
	}
	fi, err := os.Stat(opts.Path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such directory; give the path of an app in the repository", opts.Path)
		}
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s: is a file; give the app's directory (or pipe files to 'routeguard analyze -')", opts.Path)
	}
	repoRoot := opts.RepoRoot
	if repoRoot == "" {
		if repoRoot, err = FindRepoRoot(opts.Path); err != nil {
			return nil, err
		}
	}
	r, err := newRoot(repoRoot, opts.ExtraRoots...)
	if err != nil {
		return nil, err
	}
	defer r.close()
	r.maxFile = opts.MaxFileBytes
	r.setTrace(opts.Trace)
	appDir, err := r.resolve(opts.Path)
	if err != nil {
		return nil, fmt.Errorf("app path %w", err)
	}
	res := &Result{Tool: r.detect(appDir), Path: r.rel(appDir), RepoRoot: r.dir}
	switch res.Tool {
	case ToolKustomize:
		var left leftOut
		res.Set, left, err = renderKustomize(ctx, r, appDir, opts)
		res.MissingCharts, res.Remote = left.charts, left.remote
	case ToolHelm:
		res.Set, res.MissingDependencies, err = renderHelm(ctx, r, appDir, opts)
	default:
		res.Set, res.Warnings, err = renderDirectory(ctx, r, appDir, opts)
	}
	if err != nil {
		return nil, err
	}
	if err := CheckNames(res.Set.Objects()); err != nil {
		return nil, err
	}
	return res, nil
}
