// Package cli turns command lines into calls on routeguard's packages. Each
// subcommand lives in its own file; this file holds the dispatcher and the
// environment (streams, variables) that every command receives.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// Exit codes, documented in README.md.
const (
	ExitOK       = 0 // success
	ExitFindings = 1 // a finding reached the failing severity
	ExitError    = 2 // usage, input or render error
)

// Env is everything a command may touch outside its arguments. Tests build
// one with buffers and a map; main uses OSEnv.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads a variable of the process environment.
	Getenv func(string) string
	// Environ lists the process environment as KEY=VALUE pairs.
	Environ func() []string
	// Getwd returns the working directory.
	Getwd func() (string, error)
	// Executable is the path of the running routeguard binary (used where
	// routeguard must call itself, e.g. as Kustomize's helm command).
	Executable func() (string, error)
	// IsTerminal reports whether Stdout is a terminal (colour in reports).
	IsTerminal bool
}

// OSEnv is the Env of the running process.
func OSEnv() *Env {
	return &Env{
		Stdin:      os.Stdin,
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		Getenv:     os.Getenv,
		Environ:    os.Environ,
		Getwd:      os.Getwd,
		Executable: os.Executable,
		IsTerminal: isTerminal(os.Stdout),
	}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// command is one subcommand. run receives the arguments after the command's
// name (and, for nested commands, after the sub-name).
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *Env, args []string) int
}

// commands is the registry of top-level subcommands, kept sorted by name.
// A capability adds its command here and in a file of its own.
func commands() []command {
	cs := []command{
		{"render", "render an app directory into the manifests the reconciler would apply", runRender},
		{"version", "print routeguard's version", runVersion},
	}
	cs = append(cs, extraCommands...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	return cs
}

// extraCommands lets files of this package register commands without editing
// the list above (see register).
var extraCommands []command

func register(c command) { extraCommands = append(extraCommands, c) }

// Run executes one routeguard command line and returns the process exit code.
func Run(ctx context.Context, args []string, env *Env) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(env.Stdout)
		if len(args) == 0 {
			return ExitError
		}
		return ExitOK
	}
	if env.Getenv != nil && env.Getenv(helmShimEnv) == "1" {
		// Kustomize's helmCharts generator calls us as its helm binary.
		return runHelmShim(ctx, env, args)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, env, args[1:])
		}
	}
	fmt.Fprintf(env.Stderr, "routeguard: unknown command %q; run 'routeguard --help' for the list\n", args[0])
	return ExitError
}

func usage(w io.Writer) {
	var b strings.Builder
	b.WriteString("routeguard makes Kubernetes traffic routing changes safe to merge in GitOps repositories.\n\n")
	b.WriteString("Usage:\n  routeguard <command> [flags] [args]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-14s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun 'routeguard <command> --help' for a command's flags.\n")
	b.WriteString("Exit codes: 0 success, 1 findings at the failing severity, 2 usage, input or render error.\n")
	io.WriteString(w, b.String())
}
