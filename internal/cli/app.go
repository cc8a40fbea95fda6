// Package cli turns command lines into calls on internal/action: a
// spf13/cobra command tree (root.go) with one file per command. A command
// file binds its flags to the fields of its action's options, prints the
// action's result and turns it into an exit code; nothing else.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/routeguard/routeguard/internal/action"
	"github.com/routeguard/routeguard/internal/printable"

	"github.com/spf13/cobra"
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
	// Executable is the path of the running routeguard binary (plugins such
	// as routeguard-istio are looked for beside it).
	Executable func() (string, error)
	// IsTerminal reports whether Stdout is a terminal (colour in reports).
	IsTerminal bool
	// Exit, when set, ends the process: the command then runs under the
	// memory and time guard (internal/guard), which prints one message and
	// exits with code 2 when a limit is passed. Tests leave it nil.
	Exit func(code int)
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

// action is what an action may read of the environment.
func (e *Env) action() action.Env {
	return action.Env{Getenv: e.Getenv, Environ: e.Environ, Getwd: e.Getwd, Executable: e.Executable, Stdin: e.Stdin, Stderr: e.Stderr}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Execute runs one routeguard command line and returns the process exit
// code. Usage errors go to stderr with exit code 2 and nothing on stdout.
func Execute(ctx context.Context, args []string, env *Env) int {
	// Whatever reaches stderr may echo repository text: no line of it may
	// be read as a CI workflow command (printable.Lines).
	stderr := printable.NewWriter(env.Stderr)
	defer stderr.Flush()
	e := *env
	e.Stderr = stderr
	env = &e
	root := NewRootCommand(env)
	root.SetArgs(args)
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(env.Stderr, "routeguard: %s\n", errorText(ee.err))
		}
		return ee.code
	}
	// Anything else comes from cobra: an unknown command or flag, a wrong
	// number of arguments.
	fmt.Fprintf(env.Stderr, "%s: %v; run '%s --help' for usage\n", cmd.CommandPath(), err, cmd.CommandPath())
	return ExitError
}

// maxErrorChars caps the message of a failed run: repeats collapsed
// (printable.Collapse: a Helm template that includes itself says the same
// thing a thousand times), then cut with a count of the rest.
const maxErrorChars = 16000

func errorText(err error) string {
	msg := strings.TrimRight(err.Error(), "\n")
	return printable.String(printable.Cut(printable.Collapse(msg), maxErrorChars))
}

// exitError carries a command's exit code, and the message to print on
// stderr (none when the command already reported).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit code %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// fail is an input or usage error: "routeguard: <message>" on stderr, exit 2.
func fail(format string, a ...any) error {
	return &exitError{code: ExitError, err: fmt.Errorf(format, a...)}
}

// exitWith ends the command with code; whatever it had to say is printed.
func exitWith(code int) error {
	if code == ExitOK {
		return nil
	}
	return &exitError{code: code}
}

// usageError prints cmd's usage on stderr and exits with ExitError: a
// command group run without a subcommand.
func usageError(cmd *cobra.Command) error {
	cmd.SetOut(cmd.ErrOrStderr())
	_ = cmd.Usage()
	return exitWith(ExitError)
}
