package argocdcmp

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Marker is the file that opts an app into routeguard's plugin under the
// opt-in discovery rule (cmp/discovery): a regular file of this name at the
// root of the app's directory, with any content (an empty file will do).
//
// It is not .routeguard.yaml on purpose: that file configures the analysis
// (failOn, severities, suppressions, contextPaths) for every front door,
// CI included, and is also read from the repository root. Teams add it to
// apps that Argo CD renders with its own Helm or Kustomize; taking those
// apps away from Argo CD's tools because of it is what installing a
// discovering plugin must never do.
const Marker = ".routeguard-cmp"

// Discover reports whether dir is an app routeguard's opt-in discovery rule
// claims: it holds the marker file at its root (not in a subdirectory, not
// a symlink or directory of that name). match is the marker's name, or ""
// when there is none. Nothing else in the directory decides: no manifest,
// no Helm template, no config file.
func Discover(dir string) (match string, err error) {
	fi, err := os.Lstat(filepath.Join(dir, Marker))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", err
	case fi.Mode().IsRegular():
		return Marker, nil
	}
	return "", nil
}
