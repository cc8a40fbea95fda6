package analysistest

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
)

// Fixture is a test case declared in the header of its own input file, so
// that a new case is one new file:
//
//	# analyzer: gatewayapi.BackendRefs
//	# case: backendRef to a Service that is not rendered
//	# with: gateway.yaml services.yaml
//	# context: context_edge.yaml
//	# want: RG1101 HTTPRoute apps/web
//
// "with" and "context" name other files of the same testdata directory;
// every "want" line is one expected finding (none: the analyzer must find
// nothing). Files without an "analyzer:" line are not fixtures.
type Fixture struct {
	File     string // the path of the file
	Analyzer string
	Case
}

// ReadFixture reads the header of file; ok is false when it declares no case.
func ReadFixture(file string) (f Fixture, ok bool, err error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return f, false, err
	}
	f.File = file
	f.Name = filepath.Base(file)
	f.Files = []string{filepath.Base(file)}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "#") {
			if line == "" || line == "---" {
				continue
			}
			break // the header ends at the first content line
		}
		key, val, found := strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "#")), ":")
		if !found {
			continue
		}
		val = strings.TrimSpace(val)
		switch strings.TrimSpace(key) {
		case "analyzer":
			f.Analyzer, ok = val, true
		case "case":
			f.Name = val
		case "with":
			f.Files = append(strings.Fields(val), f.Files...)
		case "context":
			f.Context = append(f.Context, strings.Fields(val)...)
		case "want":
			f.Want = append(f.Want, val)
		}
	}
	return f, ok, sc.Err()
}

// RunFixtures runs every fixture matched by glob with the analyzer it names
// (one of analyzers); a fixture naming an analyzer that does not exist
// fails.
func RunFixtures(t *testing.T, glob string, analyzers ...analysis.Analyzer) {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]analysis.Analyzer{}
	for _, a := range analyzers {
		byName[a.Metadata().Name] = a
	}
	for _, file := range files {
		fx, ok, err := ReadFixture(file)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue
		}
		a, known := byName[fx.Analyzer]
		if !known {
			t.Errorf("%s: analyzer %q is not one of the analyzers run", file, fx.Analyzer)
			continue
		}
		t.Run(fx.Analyzer+"/"+fx.Name, func(t *testing.T) {
			runCase(t, a, filepath.Dir(file), fx.Case)
		})
	}
}

// runCase runs a over one case whose files lie in dir.
func runCase(t *testing.T, a analysis.Analyzer, dir string, tc Case) {
	t.Helper()
	res := analyzeIn(t, dir, analysis.RunOptions{Analyzers: []analysis.Analyzer{a}, Unrendered: tc.Unrendered, Cluster: tc.Cluster}, tc.Files, tc.Context)
	got := Keys(res.Findings)
	want := slices.Clone(tc.Want)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n  %s\nwant:\n  %s\nmessages:\n%s", strings.Join(got, "\n  "),
			strings.Join(want, "\n  "), Messages(res.Findings))
	}
	for _, f := range res.Findings {
		if f.Message == "" || f.Source.File == "" || f.Source.Line == 0 {
			t.Errorf("finding %s %s lacks a message or file:line", f.Code, f.Object)
		}
		if strings.Contains(f.Message, "%!") {
			t.Errorf("finding %s %s: its template does not fit its arguments: %s", f.Code, f.Object, f.Message)
		}
	}
}
