package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/guard"
)

// guardFlags are the limits every command runs under (internal/guard).
type guardFlags struct {
	maxMemoryMiB int64
	timeout      time.Duration
	stopFn       func()
}

func (g *guardFlags) register(root *cobra.Command) {
	root.PersistentFlags().Int64Var(&g.maxMemoryMiB, "max-memory", 0,
		fmt.Sprintf("memory ceiling in MiB (default: %d MiB + %d × the input read); past it routeguard stops with exit 2", guard.Baseline>>20, guard.InputFactor))
	root.PersistentFlags().DurationVar(&g.timeout, "timeout", guard.DefaultTimeout, "time limit of the whole run; past it routeguard stops with exit 2")
}

// start starts the guard for a command when the environment can exit.
func (g *guardFlags) start(cmd *cobra.Command, env *Env) error {
	if g.maxMemoryMiB < 0 {
		return fail("--max-memory must not be negative, got %d", g.maxMemoryMiB)
	}
	if g.timeout < 0 {
		return fail("--timeout must not be negative, got %s", g.timeout)
	}
	if env.Exit == nil {
		return nil
	}
	g.stopFn = guard.Start(guard.Limits{MaxMemory: g.maxMemoryMiB << 20, Timeout: g.timeout}, func(msg string) {
		// Whatever the command buffered for stdout is never written.
		fmt.Fprintf(env.Stderr, "routeguard: %s %s\n", strings.TrimPrefix(cmd.CommandPath(), "routeguard "), msg)
		env.Exit(ExitError)
	})
	return nil
}

func (g *guardFlags) stop() {
	if g.stopFn != nil {
		g.stopFn()
	}
}
