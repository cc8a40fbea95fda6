package affected

import (
	"path"
	"strings"
)

// ManifestGeneratePaths is the annotation of an Argo CD Application that
// names the paths its manifests depend on.
const ManifestGeneratePaths = "argocd.argoproj.io/manifest-generate-paths"

// WatchPaths resolves an Application's manifest-generate-paths as Argo CD
// does (util/app/path GetAppRefreshPaths): the value is split at ';',
// empty items are left out, an absolute item is a path from the
// repository root, a relative one is joined to each source's path ("."
// is the source's path itself). Items may be globs (path.Match syntax,
// matched against the whole changed path). sourcePaths are the paths of
// the Application's sources in this repository.
func WatchPaths(annotation string, sourcePaths []string) []string {
	var out []string
	for _, item := range strings.Split(annotation, ";") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if strings.HasPrefix(item, "/") {
			out = append(out, path.Clean(item[1:]))
			continue
		}
		for _, sp := range sourcePaths {
			out = append(out, path.Clean(path.Join(sp, item)))
		}
	}
	return out
}

// watchMatch is Argo CD's AppFilesHaveChanged for one refresh path and
// one changed file: the same path, a path below it, or a glob match.
func watchMatch(item, changed string) bool {
	item = strings.TrimPrefix(path.Clean("/"+item), "/")
	if item == "" || item == "." || changed == item || strings.HasPrefix(changed, item+"/") {
		return true
	}
	ok, err := path.Match(item, changed)
	return ok && err == nil
}

// Watched returns the first of watch (resolved by WatchPaths) that names
// the changed path p, and whether one does.
func Watched(watch []string, p string) (string, bool) {
	for _, w := range watch {
		if watchMatch(w, p) {
			return w, true
		}
	}
	return "", false
}
