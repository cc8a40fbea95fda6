package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is set at build time with -ldflags "-X .../internal/cli.Version=v1.2.3".
var Version = "dev"

func runVersion(_ context.Context, env *Env, args []string) int {
	fs := flagSet("version", "routeguard version", env)
	if code, done := parseFlags(fs, args); done {
		return code
	}
	rev := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				rev = " " + s.Value
			}
		}
	}
	fmt.Fprintf(env.Stdout, "routeguard %s%s %s/%s %s\n", Version, rev, runtime.GOOS, runtime.GOARCH, runtime.Version())
	return ExitOK
}
