package argocdcmp

import (
	"path"
	"path/filepath"
	"strings"
)

// RepoRoot returns the root of the repository copy that argocd-cmp-server
// unpacked, given the app directory the command runs in (cwd) and the app's
// path in the repository (ARGOCD_APP_SOURCE_PATH).
//
// argocd-cmp-server unpacks the repository into a fresh directory and runs
// the command in <dir>/<app path>, so the root is cwd with the app path
// taken off its end. When Argo CD streams less than the whole repository
// (the manifest-generate-paths annotation sends the common root of the
// app's paths), only a tail of the app path is below the unpacked root; the
// longest tail that cwd ends with is taken off. With no app path (or ".")
// the root is cwd itself. The result is never above cwd's unpacked copy, so
// file reads stay inside what Argo CD sent.
func RepoRoot(cwd, sourcePath string) string {
	cwd = filepath.Clean(cwd)
	p := strings.Trim(path.Clean(filepath.ToSlash(sourcePath)), "/")
	if p == "." || p == "" || strings.HasPrefix(p, "..") {
		return cwd
	}
	parts := strings.Split(p, "/")
	for i := range parts {
		tail := filepath.FromSlash(strings.Join(parts[i:], "/"))
		if strings.HasSuffix(cwd, string(filepath.Separator)+tail) {
			return strings.TrimSuffix(cwd, string(filepath.Separator)+tail)
		}
	}
	return cwd
}
