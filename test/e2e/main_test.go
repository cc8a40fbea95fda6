// Package e2e runs the routeguard binary as a user does: built once, then
// invoked on the bundled examples and on bad input.
package e2e

import (
	"testing"

	"github.com/routeguard/routeguard/test/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }

type result struct {
	stdout, stderr string
	code           int
}

// routeguard runs the binary in the repository root with a clean
// environment plus env.
func routeguard(t *testing.T, env []string, args ...string) result {
	t.Helper()
	r := harness.Run(t, harness.Options{Env: env}, args...)
	return result{r.Stdout, r.Stderr, r.Code}
}
