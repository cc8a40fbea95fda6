package argocd

import (
	"fmt"
	"slices"

	"github.com/routeguard/routeguard/internal/affected"
)

// watchPaths resolves app's argocd.argoproj.io/manifest-generate-paths
// (affected.WatchPaths) against the paths of its sources in this
// repository (a repoURL among repoURLs); false when it has none. Argo CD
// refreshes an Application on a webhook only for changes under them;
// routeguard takes them as widening what can affect the Application, never
// narrowing what its render's trace shows.
func watchPaths(app *Application, repoURLs []string) ([]string, bool) {
	if app.Object == nil {
		return nil, false
	}
	md, _ := app.Object.Body["metadata"].(map[string]any)
	anns, _ := md["annotations"].(map[string]any)
	ann, ok := anns[affected.ManifestGeneratePaths].(string)
	if !ok {
		return nil, false
	}
	var paths []string
	for _, s := range app.Spec.AllSources() {
		if s.Path != "" && (len(repoURLs) == 0 || slices.Contains(repoURLs, NormalizeRepoURL(s.RepoURL))) {
			paths = append(paths, s.Path)
		}
	}
	return affected.WatchPaths(ann, paths), true
}

// watched says why a changed path affects app through its
// manifest-generate-paths ("" when none does).
func watched(app *Application, repoURLs []string, changes *affected.Changes) string {
	w, ok := watchPaths(app, repoURLs)
	if !ok {
		return ""
	}
	for _, p := range changes.Paths() {
		if item, ok := affected.Watched(w, p); ok {
			return fmt.Sprintf("its manifest-generate-paths %s names %s", item, p)
		}
	}
	return ""
}

// unwatched lists, for each Application of head with
// manifest-generate-paths, the changed paths its render read that they do
// not name: Argo CD would not refresh it for them.
func unwatched(head *Result, changes *affected.Changes) []string {
	var out []string
	for _, a := range head.Apps {
		w, ok := watchPaths(a.App, head.RepoURLs)
		if !ok {
			continue
		}
		for _, p := range affected.TouchedPaths(a.Trace, changes) {
			if _, ok := affected.Watched(w, p); !ok {
				out = append(out, fmt.Sprintf("Application %s reads %s", a.App.Key(), p))
			}
		}
	}
	return out
}
