package shard

import (
	"bytes"
	"io/fs"
	"path/filepath"

	"github.com/routeguard/routeguard/internal/confine"
)

// ScanOptions bound Mentions.
type ScanOptions struct {
	// MaxFiles: past this many files the directory counts as mentioning
	// the word (the scan stops).
	MaxFiles int
	// MaxFileBytes bounds each file read.
	MaxFileBytes int64
	// Unreadable is the answer for a file or directory that cannot be
	// read.
	Unreadable bool
}

// Mentions reports whether a regular file under dir, in the checkout at
// root (confined: nothing outside root is read, links out are not
// followed), contains word. A shard asks it to tell which apps of other
// shards it must still build because they may produce apps (Argo CD's app
// of apps, Flux's Kustomizations applying Flux objects).
func Mentions(root, dir string, opts ScanOptions, words ...string) bool {
	cr, err := confine.Open(root)
	if err != nil {
		return true
	}
	defer cr.Close()
	n, found := 0, false
	err = cr.Walk(dir, confine.WalkOptions{}, func(p string, fi fs.FileInfo) error {
		if found || n >= opts.MaxFiles {
			found = true
			return confine.SkipDir
		}
		if fi.IsDir() || !fi.Mode().IsRegular() {
			return nil
		}
		n++
		data, err := cr.ReadFile(filepath.Join(dir, filepath.FromSlash(p)), opts.MaxFileBytes)
		if err != nil {
			found = found || opts.Unreadable
			return nil
		}
		for _, w := range words {
			if bytes.Contains(data, []byte(w)) {
				found = true
			}
		}
		return nil
	})
	return found || (err != nil && opts.Unreadable)
}
