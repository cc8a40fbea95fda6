package config

import (
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
)

func TestParse(t *testing.T) {
	c, err := Parse("x.yaml", []byte(`
failOn: warning
severity:
  RG4002: error
suppress:
  - code: RG4001
    object: "Secret shop/*"
    reason: sealed elsewhere
contextPaths:
  - apps/frontend
  - path: apps/backend
    namespace: shop-prod
    values: [values-prod.yaml]
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.FailOn != analysis.FailOnWarning || c.Severity["RG4002"] != analysis.SeverityError || len(c.Suppress) != 1 || c.Suppress[0].Object != "Secret shop/*" {
		t.Errorf("decoded %+v", c)
	}
	if len(c.ContextPaths) != 2 || c.ContextPaths[0].Path != "apps/frontend" || c.ContextPaths[1].Namespace != "shop-prod" || c.ContextPaths[1].Values[0] != "values-prod.yaml" {
		t.Errorf("contextPaths = %+v", c.ContextPaths)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"unknown top-level key", "failOn: error\nfailon: warning\n", `x.yaml:2: unknown key "failon"`},
		{"unknown nested key", "suppress:\n  - code: RG1\n    objekt: x\n", `x.yaml:3: unknown key "objekt"`},
		{"unknown contextPath key", "contextPaths:\n  - apps/a\n  - path: apps/b\n    namespaces: x\n", `x.yaml:4: unknown key "namespaces"`},
		{"bad failOn", "failOn: sometimes\n", `x.yaml:1: failOn must be error, warning or never, got "sometimes"`},
		{"bad severity", "suppress: []\nseverity:\n  RG1001: fatal\n", "x.yaml:3: severity of RG1001 must be"},
		{"suppress without code", "suppress:\n  - object: x\n", "has no code"},
		{"context outside repo", "contextPaths:\n  - ../elsewhere\n", "inside it"},
		{"wrong type", "suppress: yes\n", "x.yaml:1:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// argocdClusterView needs roots inside the repository.
func TestArgoCDClusterView(t *testing.T) {
	c, err := Parse(".routeguard.yaml", []byte("argocdClusterView:\n  roots: [argocd, clusters/prod/root.yaml]\n  repoURLs: [https://git.example.com/gitops.git]\n"))
	if err != nil || c.ArgoCDClusterView == nil || len(c.ArgoCDClusterView.Roots) != 2 || c.ArgoCDClusterView.RepoURLs[0] != "https://git.example.com/gitops.git" {
		t.Fatalf("parse: %+v, %v", c, err)
	}
	for in, want := range map[string]string{
		"argocdClusterView: {}\n":                  "has no roots",
		"argocdClusterView: {roots: [../other]}\n": `root "../other" must be relative to the repository root and inside it`,
		"argocdClusterView: {roots: [/etc]}\n":     `root "/etc" must be relative`,
		"argocdClusterView: {root: [argocd]}\n":    "root",
	} {
		if _, err := Parse(".routeguard.yaml", []byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}
