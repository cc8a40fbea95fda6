package pluginhost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/config"
)

// script writes an executable shell script standing in for a plugin.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestStartFailures(t *testing.T) {
	tests := []struct{ name, script, want string }{
		{"never shakes hands", "sleep 30", "starting: the plugin did not complete go-plugin's handshake within 1s (plugins.timeout)"},
		{"not a plugin", "echo hello; exit 0", `starting: not a routeguard plugin: it printed "hello" instead of go-plugin's handshake`},
		{"dies at once", "echo 'fatal error: out of luck' >&2; exit 3", "its stderr says: fatal error: out of luck"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := config.Plugin{Name: "tp", Path: script(t, tt.script)}
			p := &config.Plugins{InsecureSkipVerify: true, Timeout: "1s", Items: []config.Plugin{it}}
			res, s := run(t, decodeSet(t, "a.yaml", appYAML), p)
			f := failure(t, res, s)
			if !strings.Contains(f.Err.Error(), tt.want) {
				t.Errorf("error = %v, want %q", f.Err, tt.want)
			}
		})
	}
}

func TestPluginConfigError(t *testing.T) {
	it := item(bins.test, "ok")
	it.Config = map[string]any{"mdoe": "ok"}
	res, s := run(t, decodeSet(t, "a.yaml", appYAML), &config.Plugins{Items: []config.Plugin{it}})
	f := failure(t, res, s)
	if !strings.Contains(f.Err.Error(), `analyze: plugin config: json: unknown field "mdoe"`) {
		t.Errorf("error = %v", f.Err)
	}
}
