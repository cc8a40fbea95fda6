package cli

import (
	"context"
	"fmt"

	"github.com/routeguard/routeguard/internal/version"
)

// Version is routeguard's version as reports record it (SARIF's
// tool.driver.version); see internal/version for where it comes from.
var Version = version.Get().Version

func runVersion(_ context.Context, env *Env, args []string) int {
	fs := flagSet("version", "routeguard version", env)
	if code, done := parseFlags(fs, args); done {
		return code
	}
	fmt.Fprintf(env.Stdout, "routeguard %s\n", version.Get())
	return ExitOK
}
