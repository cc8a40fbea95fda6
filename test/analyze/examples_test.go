// Package analyze runs `routeguard analyze` (the built binary, as a user
// does) over the bundled examples: the apps Argo CD deploys give no errors,
// and every app under examples/broken gives exactly the findings its files
// promise in `# routeguard-expect: CODE Kind ns/name` comments.
package analyze

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/test/harness"
	"sigs.k8s.io/yaml"
)

func TestMain(m *testing.M) { harness.Main(m) }

type finding struct {
	Code     string
	Severity string
	Message  string
	File     string
	Line     int
	Object   struct{ Kind, Namespace, Name string }
}

func (f finding) key() string {
	return f.Code + " " + f.Object.Kind + " " + f.Object.Namespace + "/" + f.Object.Name
}

// analyze runs the binary from the repository root and decodes its json report.
func analyze(t *testing.T, args ...string) ([]finding, int, string) {
	t.Helper()
	return analyzeEnv(t, nil, args...)
}

func analyzeEnv(t *testing.T, env []string, args ...string) ([]finding, int, string) {
	t.Helper()
	r := harness.Run(t, harness.Options{Env: env}, append([]string{"analyze", "-o", "json"}, args...)...)
	if r.Code == 2 {
		return nil, r.Code, r.Stderr
	}
	var doc struct{ Findings []finding }
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
		t.Fatalf("report is not json: %v\n%s", err, r.Stdout)
	}
	return doc.Findings, r.Code, r.Stderr
}

// analyzeArgoCD runs argocd analyze from the repository root.
func analyzeArgoCD(t *testing.T, args ...string) ([]finding, int, string) {
	t.Helper()
	r := harness.Run(t, harness.Options{}, append([]string{"argocd", "analyze", "-o", "json"}, args...)...)
	if r.Code == 2 {
		return nil, r.Code, r.Stderr
	}
	var doc struct{ Findings []finding }
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
		t.Fatalf("report is not json: %v\n%s", err, r.Stdout)
	}
	return doc.Findings, r.Code, r.Stderr
}

// TestRightAppsHaveNoErrors analyzes every app the example Argo CD
// Applications deploy, as the routeguard CMP would: in the app's path, with
// ARGOCD_APP_NAME and ARGOCD_APP_NAMESPACE set from the Application and its
// values-files parameter passed as -f.
func TestRightAppsHaveNoErrors(t *testing.T) {
	apps, err := filepath.Glob(filepath.Join(harness.RepoRoot, "examples", "argocd", "apps", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(apps) < 5 {
		t.Fatalf("found %d example Applications", len(apps))
	}
	for _, file := range apps {
		app := readApplication(t, file)
		t.Run(app.Metadata.Name, func(t *testing.T) {
			t.Parallel()
			args := []string{app.Spec.Source.Path}
			for _, p := range app.Spec.Source.Plugin.Parameters {
				if p.Name == "values-files" {
					for _, v := range p.Array {
						args = append(args, "-f", v)
					}
				}
			}
			env := []string{"ARGOCD_APP_NAME=" + app.Metadata.Name, "ARGOCD_APP_NAMESPACE=" + app.Spec.Destination.Namespace}
			fs, code, stderr := analyzeEnv(t, env, args...)
			if code != 0 {
				t.Errorf("exit %d; stderr: %s", code, stderr)
			}
			for _, f := range fs {
				if f.Severity == "error" {
					t.Errorf("%s:%d: %s: %s", f.File, f.Line, f.key(), f.Message)
				}
			}
		})
	}
}

type application struct {
	Metadata struct{ Name string }
	Spec     struct {
		Source struct {
			Path   string
			Plugin struct {
				Parameters []struct {
					Name  string
					Array []string
				}
			}
		}
		Destination struct{ Namespace string }
	}
}

func readApplication(t *testing.T, file string) application {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var app application
	if err := yaml.Unmarshal(data, &app); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if app.Spec.Source.Path == "" || app.Metadata.Name == "" {
		t.Fatalf("%s: no name or source path", file)
	}
	return app
}

// TestBrokenAppsGiveWhatTheyPromise compares each broken app's RG findings
// with its `# routeguard-expect:` comments, exactly. (Istio's own IST
// findings are the Istio analyzer's to test.)
func TestBrokenAppsGiveWhatTheyPromise(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(harness.RepoRoot, "examples", "broken", "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		n++
		rel, _ := filepath.Rel(harness.RepoRoot, dir)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			want := expectations(t, dir)
			if len(want) == 0 {
				t.Fatalf("%s promises no findings; a broken app must say what is wrong", rel)
			}
			fs, code, stderr := analyze(t, rel)
			if strings.HasPrefix(filepath.Base(dir), "argocd-") {
				// A repository of Argo CD Applications and AppProjects.
				fs, code, stderr = analyzeArgoCD(t, rel)
			}
			if code != 1 {
				t.Errorf("exit %d, want 1; stderr: %s", code, stderr)
			}
			var got []string
			for _, f := range fs {
				if strings.HasPrefix(f.Code, "RG") {
					got = append(got, f.key())
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("findings:\n  %s\npromised:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
	if n < 4 {
		t.Errorf("found %d broken apps, want at least 4", n)
	}
}

// expectations reads `# routeguard-expect: CODE Kind ns/name` lines.
func expectations(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "# routeguard-expect:"); ok {
				out = append(out, strings.Join(strings.Fields(rest), " "))
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
