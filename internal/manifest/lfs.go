package manifest

import "bytes"

// lfsPointer starts a Git LFS pointer file: what a checkout without LFS
// content holds in place of the file (Argo CD renders such files only with
// LFS enabled on the repository; actions/checkout needs lfs: true).
var lfsPointer = []byte("version https://git-lfs.github.com/spec/v1")

// IsLFSPointer reports whether data is a Git LFS pointer, not the file.
func IsLFSPointer(data []byte) bool { return bytes.HasPrefix(data, lfsPointer) }

// LFSPointerError says that file is a Git LFS pointer and how to fetch it.
func LFSPointerError(file string) error {
	return &Error{File: file, Line: 1, Msg: "this file is a Git LFS pointer, not the file it stands for: fetch the LFS content before running routeguard (git lfs pull; in CI, actions/checkout with lfs: true)"}
}
