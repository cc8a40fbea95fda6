// Package cachekey shows Go's test cache what a test's result depends on
// beyond what the test process reads itself: the binaries it executes and
// the files those binaries (or a `go build` the test runs) read.
//
// The go command keys a cached test result on the test binary, its flags,
// the environment variables the test read and the files and directories it
// opened (their sizes and modification times), and it checks them again
// before it replays a result. It cannot see what a child process reads: a
// test that only executes bin/routeguard on examples/ would replay "ok
// (cached)" after the binary was rebuilt or an example edited. Opening them
// here puts them in the key.
//
// Two limits of the go command: only paths inside the test's module count
// (the rest is not checked again), and only what is read while tests run
// (what TestMain does before m.Run is not recorded). So call these from
// tests or from the helpers tests call; each does its work once per process.
// A binary outside the module (ROUTEGUARD_BIN=/tmp/...) is not checked:
// run such tests with -count=1.
package cachekey

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

var once sync.Map // key → *sync.Once

func do(key string, f func()) {
	o, _ := once.LoadOrStore(key, new(sync.Once))
	o.(*sync.Once).Do(f)
}

// Env records that the result depends on the environment variable name (a
// variable read in TestMain only is not recorded).
func Env(name string) { os.Getenv(name) }

// Binary records the executable at path and, when there is one beside it,
// the Istio plugin routeguard-istio (make build leaves them together; the
// binary runs it from there).
func Binary(path string) {
	do("bin "+path, func() {
		for _, p := range []string{path, filepath.Join(filepath.Dir(path), "routeguard-istio")} {
			if f, err := os.Open(p); err == nil {
				f.Close()
			}
		}
	})
}

// Tree records every directory under root, and so the size and modification
// time of every file in it and every file added or removed, but .git
// directories and, at root, the build outputs .gitignore names (bin, .bench,
// .tools, dist: record a binary with Binary). Use it for the checkout when a
// child reads files the test does not name one by one.
func Tree(root string) {
	root = filepath.Clean(root)
	do("tree "+root, func() {
		skip := map[string]bool{}
		for _, d := range []string{"bin", ".bench", ".tools", "dist"} {
			skip[filepath.Join(root, d)] = true
		}
		// WalkDir opens (and so records) each directory it reads.
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && p != root && (d.Name() == ".git" || skip[p]) {
				return filepath.SkipDir
			}
			return nil
		})
	})
}
