// Package modproxy zips this repository's Go modules the way the go command
// and proxy.golang.org zip a tagged module, and lays them out as a module
// proxy directory (GOPROXY=file://DIR). It proves `go install
// github.com/routeguard/routeguard/cmd/routeguard@VERSION` without
// publishing anything, and computes the go.sum lines of the plugin SDK
// that the main module requires.
package modproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

// Module is one module of the repository at the version it is served as.
type Module struct {
	Path    string // module path, e.g. github.com/routeguard/routeguard/plugins/sdk
	Version string // e.g. v0.1.0
	Dir     string // the module's root directory (holding go.mod)
}

func (m Module) String() string { return m.Path + "@" + m.Version }

// Files lists the files of m as a tag of the current work tree would hold
// them: git's tracked and untracked-but-not-ignored files (so build outputs
// such as bin/ stay out), without files of nested modules, vendor
// directories or symlinks (modzip.Create drops those).
func Files(m Module) ([]modzip.File, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ".")
	cmd.Dir = m.Dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the files of %s in %s (it must be a git checkout): %v: %s", m, m.Dir, err, strings.TrimSpace(stderr.String()))
	}
	var files []modzip.File
	for _, name := range strings.Split(string(out), "\x00") {
		if name == "" {
			continue
		}
		p := filepath.Join(m.Dir, filepath.FromSlash(name))
		fi, err := os.Lstat(p)
		if os.IsNotExist(err) {
			continue // tracked, deleted in the work tree
		}
		if err != nil {
			return nil, err
		}
		files = append(files, file{slash: name, path: p, info: fi})
	}
	return files, nil
}

type file struct {
	slash string
	path  string
	info  os.FileInfo
}

func (f file) Path() string                 { return f.slash }
func (f file) Lstat() (os.FileInfo, error)  { return f.info, nil }
func (f file) Open() (io.ReadCloser, error) { return os.Open(f.path) }

// Zip writes the module zip of m to w.
func Zip(w io.Writer, m Module) error {
	files, err := Files(m)
	if err != nil {
		return err
	}
	if err := modzip.Create(w, module.Version{Path: m.Path, Version: m.Version}, files); err != nil {
		return fmt.Errorf("zipping %s: %w", m, err)
	}
	return nil
}

// Sum returns the two go.sum lines of m ("<path> <version> h1:..." and
// "<path> <version>/go.mod h1:..."), as the go command records them.
func Sum(m Module) (string, error) {
	tmp, err := os.CreateTemp("", "modproxy-*.zip")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := Zip(tmp, m); err != nil {
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	h, err := dirhash.HashZip(tmp.Name(), dirhash.Hash1)
	if err != nil {
		return "", fmt.Errorf("hashing %s: %w", m, err)
	}
	gomod, err := os.ReadFile(filepath.Join(m.Dir, "go.mod"))
	if err != nil {
		return "", err
	}
	hmod, err := dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(gomod)), nil
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %s %s\n%s %s/go.mod %s\n", m.Path, m.Version, h, m.Path, m.Version, hmod), nil
}

// Write lays mods out under dir as a module proxy: for each module
// <escaped path>/@v/{list,<version>.info,<version>.mod,<version>.zip}.
// Use it as GOPROXY=file://<dir>.
func Write(dir string, mods ...Module) error {
	for _, m := range mods {
		esc, err := module.EscapePath(m.Path)
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		escv, err := module.EscapeVersion(m.Version)
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		vdir := filepath.Join(dir, filepath.FromSlash(esc), "@v")
		if err := os.MkdirAll(vdir, 0o755); err != nil {
			return err
		}
		gomod, err := os.ReadFile(filepath.Join(m.Dir, "go.mod"))
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		// A fixed time keeps the proxy's bytes the same from run to run.
		info, err := json.Marshal(struct {
			Version string
			Time    time.Time
		}{m.Version, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			return err
		}
		zf, err := os.Create(filepath.Join(vdir, escv+".zip"))
		if err != nil {
			return err
		}
		if err := Zip(zf, m); err != nil {
			zf.Close()
			return err
		}
		if err := zf.Close(); err != nil {
			return err
		}
		for name, data := range map[string][]byte{
			escv + ".info": info,
			escv + ".mod":  gomod,
		} {
			if err := os.WriteFile(filepath.Join(vdir, name), data, 0o644); err != nil {
				return err
			}
		}
		if err := appendLine(filepath.Join(vdir, "list"), m.Version); err != nil {
			return err
		}
	}
	return nil
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(f, line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
