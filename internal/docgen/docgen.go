// Package docgen writes the parts of the documentation that lists in the
// code decide: the analyzers, the catalog of finding codes and the report formats
// (docs/analysis.md; the formats also in README.md), the routing kinds (docs/health.md), the
// notification triggers (docs/notifications.md) and the CLI reference (docs/cli.md). Generated regions sit between markers
//
//	<!-- BEGIN GENERATED codes: go generate ./internal/docgen -->
//	...
//	<!-- END GENERATED codes -->
//
// and a test fails when they drift from the code.
package docgen

//go:generate go run ./cmd/docgen -root ../..

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Region is one generated part of one documentation file.
type Region struct {
	File     string // relative to the repository root
	Name     string
	Generate func() (string, error)
	// Whole means the file is generated whole (no markers).
	Whole bool
}

// Regions lists every generated region.
func Regions() []Region {
	return []Region{
		{File: "docs/analysis.md", Name: "analyzers", Generate: analyzersTable},
		{File: "docs/analysis.md", Name: "codes", Generate: codesTable},
		{File: "docs/analysis.md", Name: "formats", Generate: formatsTable},
		{File: "README.md", Name: "formats", Generate: formatsTable},
		{File: "docs/health.md", Name: "kinds", Generate: kindsTable},
		{File: "docs/notifications.md", Name: "triggers", Generate: triggersTable},
		{File: "docs/cli.md", Name: "cli", Generate: cliReference, Whole: true},
	}
}

func begin(name string) string {
	return "<!-- BEGIN GENERATED " + name + ": go generate ./internal/docgen -->\n"
}

func end(name string) string { return "<!-- END GENERATED " + name + " -->\n" }

// Render returns the content file should have with r regenerated.
func (r Region) Render(file []byte) ([]byte, error) {
	body, err := r.Generate()
	if err != nil {
		return nil, fmt.Errorf("%s: generating %s: %w", r.File, r.Name, err)
	}
	if r.Whole {
		return []byte(body), nil
	}
	b, e := begin(r.Name), end(r.Name)
	i := bytes.Index(file, []byte(b))
	j := bytes.Index(file, []byte(e))
	if i < 0 || j < i {
		return nil, fmt.Errorf("%s: no generated region %q (add the lines %q and %q)", r.File, r.Name, strings.TrimSpace(b), strings.TrimSpace(e))
	}
	var out bytes.Buffer
	out.Write(file[:i+len(b)])
	out.WriteString(body)
	out.Write(file[j:])
	return out.Bytes(), nil
}

// Update rewrites every region under root and reports the files changed.
func Update(root string) ([]string, error) {
	var changed []string
	for _, r := range Regions() {
		p := filepath.Join(root, filepath.FromSlash(r.File))
		cur, err := os.ReadFile(p)
		if err != nil && !(r.Whole && os.IsNotExist(err)) {
			return changed, err
		}
		next, err := r.Render(cur)
		if err != nil {
			return changed, err
		}
		if bytes.Equal(cur, next) {
			continue
		}
		if err := os.WriteFile(p, next, 0o644); err != nil {
			return changed, err
		}
		changed = append(changed, r.File)
	}
	return changed, nil
}
