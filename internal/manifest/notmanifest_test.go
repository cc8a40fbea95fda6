package manifest

import "testing"

func TestNotManifest(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       bool
	}{
		{"pre-commit configuration", "repos:\n  - repo: https://example.com/hooks\n    hooks: [{id: lint}]\n", true},
		{"GitHub workflow", "on: push\njobs: {test: {runs-on: ubuntu-latest}}\n", true},
		{"top-level list (an Ansible play)", "- hosts: all\n  tasks: []\n", true},
		{"values of two documents and an empty one", "a: 1\n---\n---\nb: 2\n", true},
		{"kind without apiVersion", "kind: Service\nmetadata: {name: a}\n", false},
		{"apiVersion without kind", "apiVersion: v1\nmetadata: {name: a}\n", false},
		{"a manifest after other YAML", "a: 1\n---\napiVersion: v1\nkind: Service\n", false},
		{"malformed YAML", "a: [1, 2\n", false},
		{"no document", "# only a comment\n", false},
		{"Grafana provisioning (apiVersion: 1)", "apiVersion: 1\ndatasources: [{name: loki}]\n", true},
		{"numeric apiVersion with a kind", "apiVersion: 1\nkind: Service\n", false},
		{"JSON without kind", `{"name": "x", "version": "1.0.0"}`, true},
	} {
		if got := NotManifest([]byte(tc.data)); got != tc.want {
			t.Errorf("%s: NotManifest = %v, want %v", tc.name, got, tc.want)
		}
	}
}
