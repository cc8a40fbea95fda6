package ci

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/mod/semver"
)

// versionRefs are the places the docs, manifests and CI examples name a
// routeguard release; scripts/set-version.sh rewrites them all.
var versionRefs = []*regexp.Regexp{
	regexp.MustCompile(`routeguard/routeguard@(v\d[\w.+-]*)`),                              // the GitHub Action
	regexp.MustCompile(`ghcr\.io/routeguard/routeguard-cmp:([\w.+-]+)`),                    // the image
	regexp.MustCompile(`routeguard/routeguard/releases/download/(v\d[\w.+-]*)`),            // binaries
	regexp.MustCompile(`raw\.githubusercontent\.com/routeguard/routeguard/(v\d[\w.+-]*)/`), // template, schema, chart values
	regexp.MustCompile(`cmd/routeguard(?:-istio)?@(v\d[\w.+-]*)`),                          // go install
	regexp.MustCompile(`(?m)^\s+version: (v\d+\.\d+\.\d+[^\s]*)`),                          // the integrations' version input
	regexp.MustCompile(`//cmp\?ref=(v\d[\w.+-]*)`),                                         // the Kustomize component
	regexp.MustCompile(`routeguard_(\d+\.\d+\.\d+[^_\s]*)_(?:linux|darwin)_`),              // archive names (no "v")
}

// TestOneReleaseVersion: every reference names the same release, a
// semantic version, never a floating tag such as :latest. (docs/releasing.md
// writes vX.Y.Z and is not read.)
func TestOneReleaseVersion(t *testing.T) {
	var files []string
	for _, glob := range []string{"README.md", "docs/*.md", "cmp/*.yaml", "examples/flux/ci/*.yml", "templates/*.yml"} {
		m, err := filepath.Glob(filepath.Join(root, glob))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			if filepath.Base(f) != "releasing.md" {
				files = append(files, f)
			}
		}
	}
	seen := map[string][]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, re := range versionRefs {
			for _, m := range re.FindAllStringSubmatch(string(data), -1) {
				rel, _ := filepath.Rel(root, f)
				v := m[1]
				if !strings.HasPrefix(v, "v") {
					v = "v" + v
				}
				seen[v] = append(seen[v], rel+": "+strings.TrimSpace(m[0]))
			}
		}
	}
	if len(seen) != 1 {
		t.Errorf("release references disagree (run scripts/set-version.sh):\n%v", seen)
	}
	n := 0
	for v, where := range seen {
		n += len(where)
		if !semver.IsValid(v) || semver.Prerelease(v) != "" {
			t.Errorf("%q is not a release version: %v", v, where)
		}
	}
	if n < 10 {
		t.Errorf("found %d references; the patterns are broken", n)
	}
}
