//go:build unix

package resultcache

import (
	"io/fs"
	"os"
	"syscall"
)

func ownedByMe(st fs.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return !ok || int(sys.Uid) == os.Getuid()
}

func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}
