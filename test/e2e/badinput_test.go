package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInput: every bad input gives exit 2, one clear message on stderr
// naming the place, and nothing on stdout.
// symlinkApp makes an app directory holding a symlink to a file outside dir.
func symlinkApp(t *testing.T, dir string) string {
	outside := filepath.Join(t.TempDir(), "secret.yaml")
	os.WriteFile(outside, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stolen\n"), 0o644)
	app := filepath.Join(dir, "linked")
	os.MkdirAll(app, 0o755)
	if err := os.Symlink(outside, filepath.Join(app, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	return app
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return filepath.Dir(p)
	}
	chartDir := write("chart/Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.0.0\n")
	write("chart/templates/bad.yaml", "{{ .Values.missing.deeper }}\n")
	good := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n"
	bomb := good + "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: [*g,*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"malformed yaml", []string{"render", write("malformed/a.yaml", good+"---\nkind: [\n")}, "malformed/a.yaml:7: malformed YAML"},
		{"not utf-8", []string{"render", write("latin1/a.yaml", good+"data:\n  k: caf\xe9\n")}, "latin1/a.yaml:6: file is not valid UTF-8"},
		{"not an object", []string{"render", write("scalar/a.yaml", good+"---\njust a string\n")}, "scalar/a.yaml:6: document 2 is a scalar"},
		{"missing path", []string{"render", filepath.Join(dir, "nope")}, "no such directory"},
		{"alias bomb", []string{"render", write("bomb/a.yaml", bomb)}, "bomb/a.yaml: YAML aliases expand to more than"},
		{"over size limit", []string{"render", write("big/a.yaml", good+"data:\n  k: "+strings.Repeat("x", 2<<20)+"\n"), "--max-file-size", "1"}, "over the 1 MiB limit"},
		{"chart template error", []string{"render", chartDir}, "chart: helm template failed"},
		{"symlink outside the repository", []string{"render", symlinkApp(t, dir)}, "outside the repository root"},
		{"kustomization outside the repository", []string{"render", write("kapp/kustomization.yaml", "resources:\n- ../../../../etc/hostname\n")}, "outside the repository root"},
		{"unknown flag", []string{"render", "--frobnicate"}, "unknown flag: --frobnicate"},
		{"bad output", []string{"render", "examples/apps/reviews", "-o", "xml"}, "--output must be yaml or json"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if args[0] == "render" && len(args) > 1 && filepath.IsAbs(args[1]) {
				args = append(args, "--repo-root", dir)
			}
			r := routeguard(t, nil, args...)
			if r.code != 2 {
				t.Errorf("exit %d, want 2", r.code)
			}
			if r.stdout != "" {
				t.Errorf("stdout must stay empty on error, got %d bytes", len(r.stdout))
			}
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr %q\ndoes not contain %q", r.stderr, tt.want)
			}
			if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
				t.Errorf("stderr shows a panic: %s", r.stderr)
			}
		})
	}
}
