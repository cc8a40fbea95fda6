// Command routeguard-inproc is routeguard's analysis with Istio's analyzers
// linked in and registered (analysis.Register(istio.Analyzers{})) instead of
// run by the routeguard-istio plugin: scripts/bench-analyze.sh measures it
// beside `routeguard analyze` to show what the plugin boundary costs.
//
//	routeguard-inproc pipeline DIR
//
// renders DIR like `routeguard analyze DIR`, runs every registered analyzer
// and prints one line per finding ("file:line CODE severity Kind ns/name:
// message"), exiting 1 when a finding is an error. Other arguments run
// routeguard's CLI unchanged. ROUTEGUARD_CPUPROFILE=FILE writes a CPU
// profile of the pipeline, ROUTEGUARD_MEMPROFILE=FILE a heap profile taken
// after the analysis; ROUTEGUARD_NO_ISTIO=1 leaves Istio's analyzers out
// (to measure what they cost).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/istio"
	"github.com/routeguard/routeguard/internal/analysis/registry"
	"github.com/routeguard/routeguard/internal/cli"
	"github.com/routeguard/routeguard/internal/gctune"
	"github.com/routeguard/routeguard/internal/render"
)

func main() {
	gctune.Apply(os.LookupEnv) // as routeguard's main, so the comparison is like for like
	if os.Getenv("ROUTEGUARD_NO_ISTIO") == "" {
		analysis.Register(istio.Analyzers{})
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	var code int
	if len(os.Args) > 1 && os.Args[1] == "pipeline" {
		code = pipeline(ctx, os.Args[2:], os.Stdout, os.Stderr)
	} else {
		code = cli.Run(ctx, os.Args[1:], cli.OSEnv())
	}
	stop()
	os.Exit(code)
}

func pipeline(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if p := os.Getenv("ROUTEGUARD_CPUPROFILE"); p != "" {
		if f, err := os.Create(p); err == nil {
			if err := pprof.StartCPUProfile(f); err == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: routeguard-inproc pipeline DIR")
		return 2
	}
	r, err := render.Render(ctx, render.Options{Path: args[0], RepoRoot: args[0]})
	if err != nil {
		fmt.Fprintf(stderr, "routeguard-inproc: %v\n", err)
		return 2
	}
	settled := gctune.Settled() // as routeguard analyze does
	res, err := analysis.Run(ctx, analysis.RunOptions{Set: r.Set, Analyzers: registry.All()})
	settled()
	if err != nil {
		fmt.Fprintf(stderr, "routeguard-inproc: %v\n", err)
		return 2
	}
	if p := os.Getenv("ROUTEGUARD_MEMPROFILE"); p != "" {
		if f, err := os.Create(p); err == nil {
			_ = pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
		}
	}
	for _, f := range res.Findings {
		fmt.Fprintf(stdout, "%s %s %s %s: %s\n", f.Source, f.Code, f.Severity, f.Object, f.Message)
	}
	if res.Max() >= analysis.SeverityError {
		return 1
	}
	return 0
}
