package config

import (
	"strings"
	"testing"
	"time"
)

const sum = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestParseCatalog(t *testing.T) {
	p, err := ParseCatalog("catalog.yaml", []byte(`
plugins:
  dir: /opt/routeguard/plugins
  onError: warn
  timeout: 5s
  istio: "off"
  items:
    - name: team-hosts
      path: tools/team-hosts
      sha256: `+sum+`
      timeout: 2s
      onError: fail
      always: true
      config:
        teams:
          shop: ["*.shop.example.com"]
    - name: from-dir
`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Dir != "/opt/routeguard/plugins" || p.Istio != "off" || len(p.Items) != 2 {
		t.Fatalf("plugins = %+v", p)
	}
	th, dir := &p.Items[0], &p.Items[1]
	if th.Path != "tools/team-hosts" || th.SHA256 != sum || !th.Always {
		t.Errorf("item = %+v", th)
	}
	teams, _ := th.Config["teams"].(map[string]any)
	if hosts, _ := teams["shop"].([]any); len(hosts) != 1 || hosts[0] != "*.shop.example.com" {
		t.Errorf("config = %#v", th.Config)
	}
	if p.TimeoutOf(th) != 2*time.Second || p.TimeoutOf(dir) != 5*time.Second || p.TimeoutOf(nil) != 5*time.Second {
		t.Errorf("timeouts %v %v", p.TimeoutOf(th), p.TimeoutOf(dir))
	}
	if !p.FailsOnError(th) || p.FailsOnError(dir) {
		t.Errorf("onError: item fail=%v, dir plugin fail=%v", p.FailsOnError(th), p.FailsOnError(dir))
	}
	empty := &Plugins{}
	if empty.TimeoutOf(nil) != DefaultPluginTimeout || !empty.FailsOnError(nil) {
		t.Error("defaults: want 30s and fail")
	}
}

// A repository selects and configures plugins; it cannot name a binary,
// pin one, or turn verification off.
func TestRepositorySelectsOnly(t *testing.T) {
	c, err := Parse(".routeguard.yaml", []byte("plugins:\n  onError: warn\n  items:\n    - name: team-hosts\n      timeout: 3s\n      config: {a: 1}\n"))
	if err != nil || len(c.Plugins.Items) != 1 || c.Plugins.TimeoutOf(&c.Plugins.Items[0]) != 3*time.Second {
		t.Fatalf("selection: %+v %v", c, err)
	}
	for name, in := range map[string]string{
		"path":               "plugins:\n  items:\n    - name: evil\n      path: bin/evil\n",
		"sha256":             "plugins:\n  items:\n    - name: evil\n      sha256: " + sum + "\n",
		"dir":                "plugins:\n  dir: tools\n",
		"insecureSkipVerify": "plugins:\n  insecureSkipVerify: true\n",
		"always":             "plugins:\n  items:\n    - name: a\n      always: true\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(".routeguard.yaml", []byte(in))
			if err == nil || !strings.Contains(err.Error(), name+" is") && !strings.Contains(err.Error(), name+" is for") {
				t.Fatalf("error = %v", err)
			}
		})
	}
}

func TestParsePluginErrors(t *testing.T) {
	item := func(extra string) string {
		return "plugins:\n  items:\n    - name: th\n      path: bin/th\n" + extra
	}
	tests := []struct{ name, in, want string }{
		{"unknown key", item("      sha: x\n"), `x.yaml:5: unknown key "sha"`},
		{"unknown section key", "plugins:\n  directory: x\n", `x.yaml:2: unknown key "directory"`},
		{"no checksum", item(""), "plugin th: sha256 is required (run `sha256sum bin/th`)"},
		{"bad checksum", item("      sha256: ABC\n"), "sha256 must be 64 lower-case hex digits"},
		{"bad name", "plugins:\n  items:\n    - name: Team_Hosts\n      path: x\n      sha256: " + sum + "\n", "must be lower-case letters"},
		{"twice", "plugins:\n  dir: d\n  items:\n    - name: a\n    - name: a\n", `plugin "a" is declared twice`},
		{"no path no dir", "plugins:\n  items:\n    - name: a\n", "give a path"},
		{"bad onError", "plugins:\n  onError: ignore\n", "onError must be fail or warn"},
		{"bad timeout", "plugins:\n  timeout: 10\n", "timeout must be a positive duration"},
		{"bad item timeout", item("      sha256: " + sum + "\n      timeout: -1s\n"), "plugin th: timeout must be"},
		{"bad istio", "plugins:\n  istio: always\n", "istio must be auto or off"},
		{"no plugins key", "items: []\n", "unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseCatalog("x.yaml", []byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	if _, err := ParseCatalog("x.yaml", []byte(item("")+"  insecureSkipVerify: true\n")); err != nil {
		t.Errorf("insecureSkipVerify should allow a missing sha256: %v", err)
	}
}
