// Command routeguard renders GitOps applications and analyzes their traffic
// routing before Argo CD or Flux applies it. See README.md.
package main

import (
	"context"
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/routeguard/routeguard/internal/cli"
	"github.com/routeguard/routeguard/internal/gctune"
	"github.com/routeguard/routeguard/internal/render"
)

func main() {
	gctune.Apply(os.LookupEnv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
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
	// removed on every exit, including the guard's.
	tmp, err := os.MkdirTemp("", "routeguard-")
	if err == nil {
		os.Setenv("TMPDIR", tmp)
	}
	cleanup := func() {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
	}
	env := cli.OSEnv()
	env.Exit = func(code int) {
		cleanup()
		os.Exit(code)
	}
	code := cli.Run(ctx, os.Args[1:], env)
	stop()
	cleanup()
	os.Exit(code)
}
