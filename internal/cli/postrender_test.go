package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The Helm 3 contract: manifests on stdin, manifests on stdout, non-zero
// and an empty stdout on failure.
func TestPostrender(t *testing.T) {
	vs := readFile(t, "../../examples/apps/routing/istio/virtualservice-reviews.yaml")
	varsFile := filepath.Join(t.TempDir(), "vars.yaml")
	os.WriteFile(varsFile, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-vars\ndata:\n  domain: shop.example.com\n  env: prod\n"), 0o644)
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: apps\ndata:\n  host: api.${domain}\n  env: ${env:=dev}\n  literal: $${domain}\n"
	tests := []struct {
		name     string
		stdin    string
		args     []string
		wantCode int
		want     []string // in stdout (success) or stderr (failure)
	}{
		{name: "weights on the example VirtualService", stdin: vs, args: []string{"--weights", "reviews: blue 30, green 70", "--analyze=false"},
			want: []string{"subset: blue\n      weight: 30", "subset: green\n      weight: 70"}},
		{name: "weights from the routeguard_weights variable", stdin: vs, args: []string{"--var", "routeguard_weights=reviews: blue 45, green 55", "--analyze=false"},
			want: []string{"subset: blue\n      weight: 45", "subset: green\n      weight: 55"}},
		{name: "variables from a file and flags", stdin: cm, args: []string{"--vars-file", varsFile, "--var", "env=stage"},
			want: []string{"host: api.shop.example.com", "env: stage", "literal: ${domain}"}},
		{name: "no variables: no substitution (as Flux)", stdin: cm, args: nil, want: []string{"host: api.${domain}"}},
		{name: "sync waves", stdin: vs, args: []string{"--sync-waves", "--analyze=false"}, want: []string{"argocd.argoproj.io/sync-wave: 1"}},
		{name: "unknown variable in strict mode", stdin: cm, args: []string{"--var", "env=x"}, wantCode: ExitError,
			want: []string{"<stdin>:7: ConfigMap apps/c: postBuild substitution", `variable not set (strict mode): "domain"`}},
		{name: "malformed", stdin: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: \"${x\"\n", args: []string{"--var", "x=1"}, wantCode: ExitError,
			want: []string{"ConfigMap c: postBuild substitution", "missing closing brace"}},
		{name: "weights that do not add up", stdin: vs, args: []string{"--weights", "reviews: blue 30, green 30"}, wantCode: ExitError, want: []string{"add up to 60"}},
		{name: "backend no route has", stdin: vs, args: []string{"--weights", "reviews: blue 30, canary 70"}, wantCode: ExitError,
			want: []string{"VirtualService bookinfo/reviews spec.http[0].route routes to reviews backend \"green\""}},
		{name: "bad --var", stdin: cm, args: []string{"--var", "novalue"}, wantCode: ExitError, want: []string{`--var "novalue": want name=value`}},
		{name: "not YAML", stdin: "a: [\n", wantCode: ExitError, want: []string{"<stdin>"}},
		{name: "analysis gate", stdin: "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  labels:\n    v: ${v}\nspec:\n  ports:\n  - port: 80\n", args: []string{"--var", "v=1.5"},
			wantCode: ExitFindings, want: []string{"RG5006", "metadata.labels: Invalid value: a number where a string belongs", "post-render refused"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tc.stdin, append([]string{"postrender"}, tc.args...)...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.wantCode, stderr)
			}
			// Compared without quotes: how the YAML writer quotes a
			// string is not what these cases are about.
			out := strings.ReplaceAll(stdout, `"`, "")
			if tc.wantCode != ExitOK {
				if stdout != "" {
					t.Fatalf("stdout not empty on failure:\n%s", stdout)
				}
				out = stderr
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
