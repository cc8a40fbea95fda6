package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
)

// Target is one report a run writes: a format and the file it goes to
// (File "": standard output). `--report FORMAT[=FILE]` names one.
type Target struct {
	Format string
	File   string
}

// Stdout says whether t goes to standard output.
func (t Target) Stdout() bool { return t.File == "" }

// String is the target as the flag spells it.
func (t Target) String() string {
	if t.File == "" {
		return t.Format
	}
	return t.Format + "=" + t.File
}

// ParseTarget reads FORMAT[=FILE]. FORMAT is one of Formats(); FILE, when
// given, must not be empty ("-" is standard output).
func ParseTarget(s string) (Target, error) {
	format, file, hasFile := strings.Cut(s, "=")
	t := Target{Format: strings.TrimSpace(format), File: file}
	if _, ok := formats[t.Format]; !ok {
		return Target{}, fmt.Errorf("--report %q: unknown format %q: use FORMAT or FORMAT=FILE with FORMAT one of %s", s, t.Format, strings.Join(Formats(), ", "))
	}
	if hasFile && file == "" {
		return Target{}, fmt.Errorf("--report %q names no file after '=': write %s for standard output or %s=FILE", s, t.Format, t.Format)
	}
	if file == "-" {
		t.File = ""
	}
	return t, nil
}

// ParseTargets reads every --report value in order and checks them as a
// whole: at most one goes to standard output (one stream cannot hold two
// formats), and no file is named twice.
func ParseTargets(specs []string) ([]Target, error) {
	var out []Target
	var stdout *Target
	files := map[string]Target{}
	for _, s := range specs {
		t, err := ParseTarget(s)
		if err != nil {
			return nil, err
		}
		if t.Stdout() {
			if stdout != nil {
				return nil, fmt.Errorf("--report %s and --report %s both go to standard output, which holds one report: give all but one a file (FORMAT=FILE)", stdout, t)
			}
			stdout = &t
		} else {
			key := filepath.Clean(t.File)
			if prev, dup := files[key]; dup {
				return nil, fmt.Errorf("--report %s and --report %s write the same file: give each report its own", prev, t)
			}
			files[key] = t
		}
		out = append(out, t)
	}
	return out, nil
}

// StdoutTarget returns the target that goes to standard output, if any.
func StdoutTarget(ts []Target) (Target, bool) {
	for _, t := range ts {
		if t.Stdout() {
			return t, true
		}
	}
	return Target{}, false
}

// Rendered is one target's complete report.
type Rendered struct {
	Target
	Content []byte
}

// RenderAll writes findings once per target, each into its own buffer:
// nothing is written anywhere before every report is complete. opts.Color
// applies only to a text report on standard output (files never get
// terminal colours).
func RenderAll(ts []Target, findings []analysis.Finding, opts Options) ([]Rendered, error) {
	out := make([]Rendered, 0, len(ts))
	for _, t := range ts {
		o := opts
		o.Color = opts.Color && t.Stdout() && t.Format == "text"
		var buf bytes.Buffer
		w, err := New(t.Format, &buf, o)
		if err != nil {
			return nil, err
		}
		if err := WriteAll(w, findings); err != nil {
			return nil, fmt.Errorf("writing the %s report: %w", t, err)
		}
		out = append(out, Rendered{Target: t, Content: buf.Bytes()})
	}
	return out, nil
}

// Split returns the report for standard output (nil when none goes
// there) and those for files.
func Split(rs []Rendered) (stdout []byte, files []Rendered) {
	for _, r := range rs {
		if r.Stdout() {
			stdout = r.Content
			if stdout == nil {
				stdout = []byte{}
			}
			continue
		}
		files = append(files, r)
	}
	return stdout, files
}
