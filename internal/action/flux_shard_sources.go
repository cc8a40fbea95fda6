package action

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/routeguard/routeguard/internal/flux"
	"github.com/routeguard/routeguard/internal/render"
)

// A flux diff shard takes --source for directories inside the repository
// (a FluxInstance or an OCIRepository that syncs an artifact pushed from a
// directory of this repository: map it there): the shard file carries
// each as KIND/NAMESPACE/NAME=PATH with PATH a slash path from the
// repository's top, and the merge maps it into each revision it exports,
// as flux diff does (revisionPaths). A directory outside the repository
// is refused: the merge's job may not have it, and would read what a
// shard file names.

// shardSources turns --source values (paths relative to wd) into the form
// a shard file carries.
func shardSources(sources []string, wd string) ([]string, error) {
	if len(sources) == 0 {
		return nil, nil
	}
	top, err := render.FindRepoRoot(wd)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(sources))
	for _, s := range sources {
		k, p, err := flux.ParseSource(s)
		if err != nil {
			return nil, err
		}
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(wd, p)
		}
		rel, err := filepath.Rel(top, abs)
		if err != nil || !(rel == "." || filepath.IsLocal(rel)) {
			return nil, fmt.Errorf("--shard takes --source only for a directory inside the repository (the merge maps it into each revision); %s is outside %s: run the review without --shard", p, top)
		}
		out = append(out, k.String()+"="+filepath.ToSlash(rel))
	}
	return out, nil
}

// checkShardSources checks a shard file's options.sources: each a Flux
// source and a slash path inside the repository.
func checkShardSources(sources []string) error {
	for _, s := range sources {
		_, p, err := flux.ParseSource(s)
		if err != nil {
			return fmt.Errorf("options.sources: %w", err)
		}
		if p != "." && (!filepath.IsLocal(filepath.FromSlash(p)) || path.Clean(p) != p || strings.Contains(p, `\`)) {
			return fmt.Errorf("options.sources %q: want a clean slash path inside the repository", s)
		}
	}
	return nil
}

// mergeSources are a shard file's sources as --source values for the
// repository whose top is top.
func mergeSources(sources []string, top string) []string {
	out := make([]string, len(sources))
	for i, s := range sources {
		ref, p, _ := strings.Cut(s, "=")
		out[i] = ref + "=" + filepath.Join(top, filepath.FromSlash(p))
	}
	return out
}

// sourcesInside checks that each mapped source directory (as
// revisionPaths gave it for the revision at root) leads, symbolic links
// followed, to a directory inside root: a link in the revision must not
// take a shard's or the merge's build out of it.
func sourcesInside(sources []string, root string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	for _, s := range sources {
		ref, p, _ := strings.Cut(s, "=")
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return fmt.Errorf("--source %s: %s: no such directory in the revision", ref, relTo(root, p))
		}
		if r, err := filepath.Rel(realRoot, real); err != nil || !(r == "." || filepath.IsLocal(r)) {
			return fmt.Errorf("--source %s: %s leads out of the repository through a symbolic link; --shard and report merge read sources inside it only", ref, relTo(root, p))
		}
	}
	return nil
}
