package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CheckFiles says, before a run does any work, whether every file target
// can be written: its directory exists and takes a new file, and the path
// is not a directory. It writes nothing that stays (a probe file is made
// and removed), so a long run never ends in a report it cannot write.
func CheckFiles(ts []Target) error {
	for _, t := range ts {
		if t.Stdout() {
			continue
		}
		if fi, err := os.Stat(t.File); err == nil && fi.IsDir() {
			return fmt.Errorf("--report %s: %s is a directory; name a file", t, t.File)
		}
		probe, err := os.CreateTemp(filepath.Dir(t.File), "."+filepath.Base(t.File)+".probe-*")
		if err != nil {
			return fileError(t, err)
		}
		probe.Close()
		os.Remove(probe.Name())
	}
	return nil
}

// WriteFiles writes each report to its file atomically: into a temporary
// file in the same directory, synced, then renamed over the target, so a
// reader sees the old file or the whole new one, never a part. It is
// called once the run completed; a run that failed writes none. A file
// that cannot be written is an error naming it; the reports renamed
// before it stay written.
func WriteFiles(rs []Rendered) error {
	for _, r := range rs {
		if r.Stdout() {
			continue
		}
		if err := writeAtomic(r.File, r.Content); err != nil {
			return fileError(r.Target, err)
		}
	}
	return nil
}

func writeAtomic(path string, content []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(content); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	// CreateTemp makes the file 0600; a report is read by other tools
	// (the CI runner's artifact upload) as a redirect's output would be.
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	// Rename replaces the name, never follows a symbolic link there: the
	// report lands at the path given, not where a planted link points.
	return os.Rename(tmp.Name(), path)
}

// fileError says which report could not be written and what to do.
func fileError(t Target, err error) error {
	dir := filepath.Dir(t.File)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--report %s: cannot write %s: directory %s does not exist; create it first", t, t.File, dir)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("--report %s: cannot write %s: permission denied in directory %s", t, t.File, dir)
	}
	return fmt.Errorf("--report %s: cannot write %s: %w", t, t.File, err)
}

// WriteFile writes content to path as a report is written: to a
// temporary file in the same directory, renamed into place (a reader sees
// the whole file or none; a link planted at path is replaced, not
// followed).
func WriteFile(path string, content []byte) error { return writeAtomic(path, content) }
