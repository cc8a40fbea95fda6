package codeowners

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/confine"
)

func owners(es []Entry) string {
	var out []string
	for _, e := range es {
		s := strings.Join(e.Owners, ",")
		if e.Section != "" {
			s = e.Section + "=" + s
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestGitHub(t *testing.T) {
	f := Parse(".github/CODEOWNERS", []byte(`# comment
*       @org/everyone
*.js    @js-owner #This is an inline comment.
/build/logs/ @doctocat
docs/*  docs@example.com
apps/   @octocat
/docs/ @doctocat
/scripts/ @doctocat @octocat
**/logs @octocat
/apps/github
/platform/gateways/ @org/infra
`), GitHub)
	tests := map[string]string{
		"README.md":                       "@org/everyone",
		"src/app.js":                      "@js-owner",
		"build/logs/x.log":                "@octocat", // **/logs is later than /build/logs/
		"docs/getting-started.md":         "@doctocat",
		"docs/build-app/troubleshoot.md":  "@doctocat",
		"web/docs/x.md":                   "@org/everyone", // docs/* is anchored at the root
		"docs/y.txt":                      "@doctocat",     // /docs/ is later than docs/*
		"a/apps/x.yaml":                   "@octocat",
		"apps/github/x":                   "", // last match has no owners
		"platform/gateways/shop.yaml":     "@org/infra",
		"platform/gateways/sub/more.yaml": "@org/infra",
	}
	for file, want := range tests {
		if got := owners(f.Owners(file)); got != want {
			t.Errorf("%s: owners %q, want %q", file, got, want)
		}
	}
}

func TestGitLabSections(t *testing.T) {
	f := Parse("CODEOWNERS", []byte(`* @default-owner
[Infrastructure] @infra-lead @infra-team
/platform/
/platform/gateways/ @gateway-owners
^[Docs]
*.md @tech-writers
[infrastructure] @ops
/terraform/
[Approvals][2] @security
/platform/gateways/
`), GitLab)
	tests := map[string]string{
		"platform/gateways/shop.yaml": "@default-owner Infrastructure=@gateway-owners Approvals=@security",
		"platform/x.yaml":             "@default-owner Infrastructure=@infra-lead,@infra-team",
		"terraform/main.tf":           "@default-owner infrastructure=@ops", // one section, each header's defaults
		"README.md":                   "@default-owner Docs=@tech-writers",
	}
	for file, want := range tests {
		if got := owners(f.Owners(file)); got != want {
			t.Errorf("%s: owners %q, want %q", file, got, want)
		}
	}
	for _, e := range f.Owners("README.md") {
		if e.Section == "Docs" && !e.Optional {
			t.Errorf("^[Docs] is optional: %+v", e)
		}
	}
}

func TestFind(t *testing.T) {
	for _, tt := range []struct {
		files  map[string]string
		syntax Syntax
		want   string
		as     Syntax
	}{
		{files: map[string]string{"CODEOWNERS": "* @a", ".github/CODEOWNERS": "* @b", "docs/CODEOWNERS": "* @c"}, syntax: GitHub, want: ".github/CODEOWNERS", as: GitHub},
		{files: map[string]string{"CODEOWNERS": "* @a", "docs/CODEOWNERS": "* @c"}, syntax: GitHub, want: "CODEOWNERS", as: GitHub},
		{files: map[string]string{"docs/CODEOWNERS": "* @c", ".gitlab/CODEOWNERS": "* @d"}, syntax: GitLab, want: "docs/CODEOWNERS", as: GitLab},
		{files: map[string]string{".gitlab/CODEOWNERS": "* @d"}, want: ".gitlab/CODEOWNERS", as: GitLab},
		{files: map[string]string{"CODEOWNERS": "[Infra]\n* @d"}, want: "CODEOWNERS", as: GitLab},
		{files: map[string]string{"docs/CODEOWNERS": "* @d"}, want: "docs/CODEOWNERS", as: GitHub},
		{files: map[string]string{"README.md": "x"}, want: ""},
	} {
		dir := t.TempDir()
		for rel, body := range tt.files {
			p := filepath.Join(dir, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cr, err := confine.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Find(cr, tt.syntax)
		cr.Close()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tt.want == "" && f != nil:
			t.Errorf("%v: found %s, want none", tt.files, f.Path)
		case tt.want != "" && (f == nil || f.Path != tt.want || f.Syntax != tt.as):
			t.Errorf("%v: found %+v, want %s as %s", tt.files, f, tt.want, tt.as)
		}
	}
}
