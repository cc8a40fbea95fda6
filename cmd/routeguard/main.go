// Command routeguard renders GitOps applications and analyzes their traffic
// routing before Argo CD or Flux applies it. See README.md.
package main

import (
	"context"
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
	code, ok := render.ServeHelmShim(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr)
	if !ok {
		code = cli.Run(ctx, os.Args[1:], cli.OSEnv())
	}
	stop()
	os.Exit(code)
}
