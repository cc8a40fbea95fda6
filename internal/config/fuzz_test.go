package config

import (
	"strings"
	"testing"
)

// FuzzParse: any .routeguard.yaml parses or fails with an error that names
// the file; never a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"failOn: warning\nseverity: {RG1101: warning}\n",
		"contextPaths: [apps/backend, {path: apps/db}]\n",
		"plugins: {items: [{name: team-hosts, config: {a: 1}}], timeout: 5s}\n",
		"transforms: {weights: {reviews: {blue: 90, green: 10}}, syncWaves: true}\n",
		"suppress: [{code: RG4002, object: Deployment shop/web}]\n",
		"failOn: [\n", "plugins: {dir: /opt}\n", "a: &a [*a]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := Parse("fuzz.yaml", data); err != nil && !strings.Contains(err.Error(), "fuzz.yaml") {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}
