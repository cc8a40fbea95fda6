package config

import (
	"os"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
)

// TestREADMEExample keeps the README's .routeguard.yaml example true to the
// code: it must parse strictly.
func TestREADMEExample(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "## `.routeguard.yaml`")
	if !ok {
		t.Fatal("README has no .routeguard.yaml section")
	}
	_, block, ok := strings.Cut(rest, "```yaml\n")
	if !ok {
		t.Fatal("README's .routeguard.yaml section has no yaml block")
	}
	block, _, _ = strings.Cut(block, "```")
	c, err := Parse("README.md", []byte(block))
	if err != nil {
		t.Fatalf("README example does not parse: %v", err)
	}
	if c.Plugins == nil || c.Transforms == nil || len(c.ContextPaths) != 2 || c.FailOn != analysis.FailOnError {
		t.Errorf("README example decoded incompletely: %+v", c)
	}
}
