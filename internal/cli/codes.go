package cli

import (
	"context"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/report"
)

func init() {
	register(command{name: "codes", summary: "print the catalog of finding codes", run: runCodes})
}

// runCodes prints the catalog (report.WriteCatalog does the work).
func runCodes(_ context.Context, env *Env, args []string) int {
	fs := flagSet("codes", "routeguard codes [-o text|json]", env)
	output := fs.StringP("output", "o", "text", "format: text or json")
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return failf(env, "codes takes no arguments, got %q", fs.Args())
	}
	if err := report.WriteCatalog(env.Stdout, *output, analysis.Catalog()); err != nil {
		return failf(env, "--output: %v", err)
	}
	return ExitOK
}
