package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// flagSet builds a pflag set for one command; flags and positional arguments
// may be interleaved, as kubectl users expect.
func flagSet(name, usageLine string, env *Env) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprintf(env.Stdout, "Usage:\n  %s\n\nFlags:\n%s", usageLine, fs.FlagUsages())
	}
	return fs
}

// parseFlags parses args; done is true when the command must return code
// right away (help was asked for, or the flags were wrong).
func parseFlags(fs *pflag.FlagSet, args []string) (code int, done bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return ExitOK, true
		}
		fmt.Fprintf(fs.Output(), "routeguard %s: %v; run 'routeguard %s --help' for the flags\n", fs.Name(), err, fs.Name())
		return ExitError, true
	}
	return ExitOK, false
}

// failf prints one error line on stderr and returns the input/usage exit code.
func failf(env *Env, format string, a ...any) int {
	msg := fmt.Sprintf(format, a...)
	fmt.Fprintf(env.Stderr, "routeguard: %s\n", strings.TrimRight(msg, "\n"))
	return ExitError
}
