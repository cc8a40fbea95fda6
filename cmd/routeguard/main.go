// Command routeguard renders GitOps applications and analyzes their traffic
// routing before Argo CD or Flux applies it. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/routeguard/routeguard/internal/cli"
)

// gcPercent is routeguard's default GOGC. Its live heap is the rendered
// objects, held until the analysis ends, and the garbage of decoding them;
// Go's default (100) lets the heap grow to twice the live set. 70 lowers
// the peak RSS of `analyze` on 10,000 objects by ~8 MB (133-137 -> 125-128
// MB) at no measurable wall-time cost; 50 saves ~13 MB but costs ~15% more
// time (docs/analysis-bench.md). GOGC in the environment still wins.
const gcPercent = 70

func main() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.OSEnv())
	stop()
	os.Exit(code)
}
