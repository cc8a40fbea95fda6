// Command routeguard-inproc (a benchmark tool, not released) is
// routeguard's analysis with Istio's analyzers linked in (passed to the
// pipeline as in-process analyzers) instead of run by the routeguard-istio
// plugin: scripts/bench-analyze.sh measures it beside `routeguard analyze`
// to show what the plugin boundary costs.
//
//	routeguard-inproc pipeline DIR
//
// renders DIR like `routeguard analyze DIR`, runs every analyzer and prints
// one line per finding ("file:line CODE severity Kind ns/name: message"),
// exiting 1 when a finding is an error. ROUTEGUARD_CPUPROFILE=FILE writes a
// CPU profile of the pipeline, ROUTEGUARD_MEMPROFILE=FILE a heap profile
// taken after the analysis; ROUTEGUARD_NO_ISTIO=1 leaves Istio's analyzers
// out (to measure what they cost).
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
	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/gctune"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
)

func main() {
	gctune.Apply(os.LookupEnv) // as routeguard's main, so the comparison is like for like
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := 2
	if len(os.Args) > 1 && os.Args[1] == "pipeline" {
		code = run(ctx, os.Args[2:], os.Getenv("ROUTEGUARD_NO_ISTIO") == "", os.Stdout, os.Stderr)
	} else {
		fmt.Fprintln(os.Stderr, "usage: routeguard-inproc pipeline DIR")
	}
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, withIstio bool, stdout, stderr io.Writer) int {
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
	// No configuration, and not the routeguard-istio plugin: Istio's
	// analyzers run here or not at all.
	res, err := render.Render(ctx, render.Options{Path: args[0], RepoRoot: args[0]})
	if err != nil {
		fmt.Fprintf(stderr, "routeguard-inproc: %v\n", err)
		return 2
	}
	in := pipeline.Input{Objects: res.Set, RepoRoot: res.RepoRoot, Config: &config.Config{Plugins: &config.Plugins{Istio: "off"}}}
	var an pipeline.Analysis
	if withIstio {
		an.Analyzers = []analysis.Analyzer{istio.Analyzers{}}
	}
	out, err := pipeline.Run(ctx, in, pipeline.Changes{}, an)
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
	var worst analysis.Severity
	for _, f := range out.Findings {
		fmt.Fprintf(stdout, "%s %s %s %s: %s\n", f.Source, f.Code, f.Severity, f.Object, f.Message)
		worst = max(worst, f.Severity)
	}
	if worst >= analysis.SeverityError {
		return 1
	}
	return 0
}
