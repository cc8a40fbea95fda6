//go:build linux

package confine

import (
	"os"
	"strconv"
)

// openedPath is the path the kernel holds for the open file f (its real
// path, symlinks resolved), from /proc/self/fd: one readlink, exact even
// if the tree changes after the open.
func openedPath(f *os.File) (string, bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return "", false
	}
	var p string
	cerr := rc.Control(func(fd uintptr) {
		p, err = os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(fd), 10))
	})
	if cerr != nil || err != nil || len(p) == 0 || p[0] != '/' {
		return "", false
	}
	return p, true
}
