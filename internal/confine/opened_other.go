//go:build !linux

package confine

import "os"

// openedPath is not known without /proc: callers resolve the path again.
func openedPath(*os.File) (string, bool) { return "", false }
