// Command routeguard renders GitOps applications and analyzes their traffic
// routing before Argo CD or Flux applies it. See README.md.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/routeguard/routeguard/internal/cli"
	"github.com/routeguard/routeguard/internal/gctune"
	"github.com/routeguard/routeguard/internal/guard"
	"github.com/routeguard/routeguard/internal/printable"
	"github.com/routeguard/routeguard/internal/render"
)

func main() {
	gctune.Apply(os.LookupEnv)
	ctx, stop := signalContext()
	// Kustomize runs routeguard as its helm command for helmCharts.
	if code, ok := render.ServeHelmShim(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr); ok {
		stop()
		os.Exit(code)
	}
	// Libraries (Helm, Kustomize, client-go) log through the standard
	// logger; what they say is not routeguard's output and could carry
	// repository content to stderr unescaped.
	log.SetOutput(io.Discard)
	// A private temporary directory: whatever the renderers leave behind is
	// removed on every way out (guard.AtExit): the command's end, a limit,
	// a signal, a panic.
	if tmp, err := os.MkdirTemp("", "routeguard-"); err == nil {
		os.Setenv("TMPDIR", tmp)
		guard.AtExit(func() { os.RemoveAll(tmp) })
	}
	env := cli.OSEnv()
	// Once a limit or a signal starts the way out, a result the command
	// was about to print is not printed.
	env.Stdout = guard.Output(os.Stdout)
	// What libraries write to os.Stderr themselves (Kustomize's
	// deprecation warnings, once per kustomization built) is said once,
	// prefixed; routeguard's own stderr is env.Stderr, the terminal's.
	stderr := os.Stderr
	var restore func()
	env.Stderr, restore = render.KustomizeWarnings(env.Stderr)
	guard.AtExit(restore)
	env.Exit = func(code int) {
		guard.RunExitHooks()
		os.Exit(code)
	}
	defer func() {
		// A panic of the command's goroutine: say so, clean up, exit 2
		// (the runtime would exit 2 too, leaving the directory behind).
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "routeguard: internal error (please report it): %s\n%s", printable.String(fmt.Sprint(r)), debug.Stack())
			env.Exit(cli.ExitError)
		}
	}()
	code := cli.Execute(ctx, os.Args[1:], env)
	stop()
	env.Exit(code)
}

// signalContext is cancelled by SIGINT or SIGTERM, unless the guard is
// watching (a command runs): then the guard alone answers the signal, with
// one message, the exit hooks and exit code 2, whether or not the command
// would have noticed the cancellation.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-sig:
				if _, _, watched := guard.Active(); !watched {
					cancel()
				}
			}
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(done)
		cancel()
	}
}
